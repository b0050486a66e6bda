"""Agreement on nominal categories: Fleiss' κ, Cohen's κ and pairwise percent agreement.

Ratings are an ``(n_items, n_raters)`` matrix of category codes ``0..n_categories-1``
(option letters A–D, canonical candidates of a (character, scenario) pair, ...); map labels
with :func:`agreement.encode_categories`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._core import (
    MISSING,
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    as_category_matrix,
    bootstrap_estimate,
    check_bootstrap_args,
)
from .resampling import resampled_row_sums

# --- Fleiss' κ --------------------------------------------------------------------------------


def rating_counts(ratings, *, n_categories: int, allow_missing: bool = False) -> np.ndarray:
    """The ``(n_items, n_categories)`` table of how many raters put each item in each category."""
    codes = as_category_matrix(ratings, n_categories=n_categories, allow_missing=allow_missing)
    n_items = codes.shape[0]
    valid = codes != MISSING
    flat = (np.arange(n_items)[:, None] * n_categories + codes)[valid]
    counts = np.bincount(flat, minlength=n_items * n_categories)
    return counts.reshape(n_items, n_categories)


def _check_count_table(table) -> tuple[np.ndarray, int]:
    table = np.asarray(table)
    if table.ndim != 2:
        raise AgreementInputError(
            f"the count table must be 2-D (n_items, n_categories); got shape {table.shape}"
        )
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise AgreementInputError(f"the count table is empty: shape {table.shape}")
    if table.dtype.kind not in "iub" and not np.all(np.floor(table) == table):
        raise AgreementInputError("the count table must hold whole numbers of raters")
    table = table.astype(np.int64)
    if (table < 0).any():
        raise AgreementInputError("the count table has a negative count")
    per_item = table.sum(axis=1)
    if not np.all(per_item == per_item[0]):
        item = int(np.argmax(per_item != per_item[0]))
        raise AgreementInputError(
            f"Fleiss' κ needs the same number of ratings on every item: item 0 has "
            f"{per_item[0]}, item {item} has {per_item[item]} (a missing rating?)"
        )
    n_raters = int(per_item[0])
    if n_raters < 2:
        raise AgreementInputError(f"Fleiss' κ needs at least 2 raters per item; got {n_raters}")
    return table, n_raters


def _fleiss_item_agreement(table: np.ndarray, n_raters: int) -> np.ndarray:
    """P_i: the share of agreeing ordered rater pairs on each item."""
    return ((table * table).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))


def _fleiss_from_sums(
    agreement_sum: np.ndarray, category_sums: np.ndarray, n_items: int, n_raters: int
) -> np.ndarray:
    """κ from Σ P_i and the category totals; NaN where one category holds every rating."""
    total = n_items * n_raters
    observed = agreement_sum / n_items
    shares = category_sums / total
    chance = (shares * shares).sum(axis=-1)
    # Category totals are whole numbers, so "one category has every rating" is an exact test.
    degenerate = np.isclose(category_sums.max(axis=-1), total, rtol=0.0, atol=1e-9)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - chance) / (1.0 - chance)
    return np.where(degenerate, np.nan, kappa)


def fleiss_kappa_from_counts(table) -> float:
    """Fleiss' κ (Fleiss 1971) from an ``(n_items, n_categories)`` count table."""
    table, n_raters = _check_count_table(table)
    n_items = table.shape[0]
    kappa = _fleiss_from_sums(
        _fleiss_item_agreement(table, n_raters).sum(), table.sum(axis=0), n_items, n_raters
    )
    if np.isnan(kappa):
        category = int(np.argmax(table.sum(axis=0)))
        raise UndefinedStatisticError(
            f"every one of the {n_items * n_raters} ratings is category {category}: chance "
            f"agreement is 1 and Fleiss' κ is undefined (raw agreement is 100%)"
        )
    return float(kappa)


def fleiss_kappa_replicates(
    table, *, n_boot: int, seed: int | np.random.Generator | None
) -> np.ndarray:
    """κ on each of ``n_boot`` item resamples of a count table; NaN where undefined.

    The resamples are ``agreement.bootstrap_unit_indices(table, n_boot, seed)``: a reference
    loop over ``table[indices[b]]`` reproduces every replicate.
    """
    table, n_raters = _check_count_table(table)
    n_items = table.shape[0]
    # Each resample's category totals and Σ P_i are sums over its items.
    numerators = (table * table).sum(axis=1) - n_raters
    sums = resampled_row_sums(np.column_stack([table, numerators]), n_boot, seed, key=table)
    agreement_sums = sums[:, -1] / (n_raters * (n_raters - 1))
    return _fleiss_from_sums(agreement_sums, sums[:, :-1], n_items, n_raters)


def fleiss_kappa(
    ratings,
    *,
    n_categories: int,
    n_boot: int = 0,
    seed: int | np.random.Generator | None = None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """Fleiss' κ over nominal categories, with a percentile CI from resampling items.

    ``ratings`` is ``(n_items, n_raters)`` with every rater rating every item (App. J: 150
    items × 4 annotators × options A–D). With ``n_boot > 0`` a ``seed`` is required.
    """
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    table = rating_counts(ratings, n_categories=n_categories)
    estimate = fleiss_kappa_from_counts(table)
    replicates = None
    if n_boot:
        replicates = fleiss_kappa_replicates(table, n_boot=n_boot, seed=seed)
    return bootstrap_estimate(estimate, replicates, ci_level)


# --- Cohen's κ --------------------------------------------------------------------------------

_COHEN_WEIGHTS = (None, "linear", "quadratic")


def _cohen_disagreement_weights(n_categories: int, weights: str | None) -> np.ndarray:
    if weights not in _COHEN_WEIGHTS:
        raise AgreementInputError(f"weights must be one of {_COHEN_WEIGHTS}; got {weights!r}")
    grid = np.arange(n_categories)
    distance = np.abs(grid[:, None] - grid[None, :]).astype(np.float64)
    if weights is None:
        return (distance > 0).astype(np.float64)
    return distance if weights == "linear" else distance**2


def _cohen_from_confusion(confusion: np.ndarray, disagreement: np.ndarray) -> np.ndarray:
    """κ = 1 − Σ w·O / Σ w·E over the last two axes; NaN when chance disagreement is 0."""
    n = confusion.sum(axis=(-2, -1))
    rows = confusion.sum(axis=-1)
    cols = confusion.sum(axis=-2)
    expected = rows[..., :, None] * cols[..., None, :] / n[..., None, None]
    observed_d = (confusion * disagreement).sum(axis=(-2, -1))
    expected_d = (expected * disagreement).sum(axis=(-2, -1))
    undefined = np.isclose(expected_d, 0.0, rtol=0.0, atol=1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 - observed_d / expected_d
    return np.where(undefined, np.nan, kappa)


def cohen_kappa(
    rater_a,
    rater_b,
    *,
    n_categories: int,
    weights: str | None = None,
    n_boot: int = 0,
    seed: int | np.random.Generator | None = None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """Cohen's κ between two raters (``weights``: None, "linear" or "quadratic").

    The CI resamples items. Both raters must rate every item.
    """
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    a = np.asarray(rater_a)
    b = np.asarray(rater_b)
    if a.ndim != 1 or b.ndim != 1:
        raise AgreementInputError(
            f"rater_a and rater_b must be 1-D, one rating per item; got shapes {a.shape} "
            f"and {b.shape}"
        )
    if a.shape != b.shape:
        raise AgreementInputError(
            f"rater_a has {a.size} ratings and rater_b has {b.size}; they must rate the same items"
        )
    codes = as_category_matrix(
        np.column_stack([a, b]) if a.size else np.empty((0, 2)),
        n_categories=n_categories,
        allow_missing=False,
    )
    disagreement = _cohen_disagreement_weights(n_categories, weights)
    n_items = codes.shape[0]
    cell = codes[:, 0] * n_categories + codes[:, 1]
    one_hot = np.zeros((n_items, n_categories * n_categories))
    one_hot[np.arange(n_items), cell] = 1.0
    confusion = one_hot.sum(axis=0).reshape(n_categories, n_categories)
    estimate = float(_cohen_from_confusion(confusion, disagreement))
    if np.isnan(estimate):
        raise UndefinedStatisticError(
            "both raters put every item in the same single category: chance agreement is 1 "
            "and Cohen's κ is undefined"
        )
    replicates = None
    if n_boot:
        # Resamples are keyed on the (rater_a, rater_b) codes: bootstrap_unit_indices(codes).
        confusions = resampled_row_sums(one_hot, n_boot, seed, key=codes).reshape(
            n_boot, n_categories, n_categories
        )
        replicates = _cohen_from_confusion(confusions, disagreement)
    return bootstrap_estimate(estimate, replicates, ci_level)


# --- pairwise percent agreement (App. K.2) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairwiseAgreement:
    """Percent agreement for every rater pair over the items both rated validly.

    ``rate[r, s] = agree[r, s] / jointly_valid[r, s]``; the diagonal is 1. ``mean_rate`` is the
    mean over distinct pairs (App. K.2: "the mean across all 120 distinct model pairs").
    """

    rate: np.ndarray
    agree: np.ndarray
    jointly_valid: np.ndarray
    mean_rate: float
    n_items: int


def pairwise_agreement(
    ratings, *, n_categories: int, common_items_only: bool = False
) -> PairwiseAgreement:
    """Share of jointly valid items on which each pair of raters chose the same category.

    Missing ratings (invalid responses) are allowed; each pair is scored on the items both
    answered. ``common_items_only`` first keeps only the items every rater answered (App.
    K.2's robustness check on the 649 questions valid for all 16 models).
    """
    codes = as_category_matrix(
        ratings, n_categories=n_categories, allow_missing=True, min_columns=2
    )
    if common_items_only:
        codes = codes[(codes != MISSING).all(axis=1)]
        if codes.shape[0] == 0:
            raise UndefinedStatisticError("no item was answered validly by every rater")
    n_items, n_raters = codes.shape
    valid = (codes != MISSING).astype(np.float64)
    one_hot = np.zeros((n_items, n_raters, n_categories))
    rows, cols = np.nonzero(codes != MISSING)
    one_hot[rows, cols, codes[rows, cols]] = 1.0
    agree = np.rint(np.einsum("irk,isk->rs", one_hot, one_hot)).astype(np.int64)
    jointly_valid = np.rint(valid.T @ valid).astype(np.int64)
    if (jointly_valid == 0).any():
        r, s = (int(i) for i in np.argwhere(jointly_valid == 0)[0])
        raise UndefinedStatisticError(f"raters {r} and {s} have no item they both answered validly")
    rate = agree / jointly_valid
    upper = np.triu_indices(n_raters, k=1)
    return PairwiseAgreement(
        rate=rate,
        agree=agree,
        jointly_valid=jointly_valid,
        mean_rate=float(rate[upper].mean()),
        n_items=n_items,
    )
