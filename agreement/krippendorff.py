"""Krippendorff's α from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's
Alpha-Reliability"), for nominal, ordinal, interval and ratio data with missing values.

Orientation follows the rest of the package: ``(n_units, n_raters)``, one row per unit (e.g. a
scenario × DIAMONDS dimension rated 1–7 by the two reviewers of App. C.2). Krippendorff's own
tables put observers in rows; transpose them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._core import (
    MISSING,
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    bootstrap_estimate,
    check_bootstrap_args,
)
from .resampling import resampled_row_sums

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _value_counts(ratings, value_domain: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Per-unit counts of each domain value: ``(n_units, n_values)``, and the domain array."""
    domain = np.asarray(list(value_domain), dtype=np.float64)
    if domain.ndim != 1 or domain.size < 2:
        raise AgreementInputError(
            f"value_domain must list at least two values; got {list(value_domain)!r}"
        )
    if np.any(np.diff(domain) <= 0):
        raise AgreementInputError(
            f"value_domain must be strictly increasing (it gives the order for ordinal data); "
            f"got {list(value_domain)!r}"
        )
    matrix = np.asarray(ratings, dtype=object)
    if matrix.ndim != 2:
        raise AgreementInputError(
            f"ratings must be a 2-D array of shape (n_units, n_raters); got shape {matrix.shape}"
        )
    if matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise AgreementInputError(f"ratings is empty: shape {matrix.shape}")
    values = np.full(matrix.shape, np.nan)
    for position, value in np.ndenumerate(matrix):
        if value is None:
            continue
        try:
            values[position] = float(value)
        except (TypeError, ValueError):
            raise AgreementInputError(
                f"rating at unit {position[0]}, rater {position[1]} is {value!r}; ratings must "
                f"be numbers (NaN or None for missing)"
            ) from None
    missing_code = (values == MISSING) & ~np.isin(MISSING, domain)
    values[missing_code] = np.nan
    present = ~np.isnan(values)
    code = np.searchsorted(domain, values)
    code = np.clip(code, 0, domain.size - 1)
    in_domain = present & (domain[code] == values)
    outside = present & ~in_domain
    if outside.any():
        unit, rater = (int(i) for i in np.argwhere(outside)[0])
        raise AgreementInputError(
            f"rating at unit {unit}, rater {rater} is {values[unit, rater]:g}, outside the "
            f"value domain {[float(v) for v in domain]}"
        )
    n_units, n_values = values.shape[0], domain.size
    flat = (np.arange(n_units)[:, None] * n_values + code)[present]
    counts = np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)
    return counts.astype(np.float64), domain


def _unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Each pairable unit's contribution to the coincidence matrix: ``(n_units, V, V)``.

    o_ck(u) = (n_uc·n_uk − [c = k]·n_uc) / (m_u − 1), for units with m_u ≥ 2 values.
    """
    pairable = counts.sum(axis=1)
    weight = np.where(pairable >= 2, 1.0 / np.maximum(pairable - 1.0, 1.0), 0.0)
    outer = counts[:, :, None] * counts[:, None, :]
    diagonal = np.einsum("uv,vw->uvw", counts, np.eye(counts.shape[1]))
    return (outer - diagonal) * weight[:, None, None]


def _squared_differences(marginals: np.ndarray, domain: np.ndarray, level: str) -> np.ndarray:
    """δ²_ck for every pair of domain values (broadcast over leading resample axes)."""
    c = domain[:, None]
    k = domain[None, :]
    if level == "nominal":
        delta = (c != k).astype(np.float64)
        return np.broadcast_to(delta, marginals.shape[:-1] + delta.shape)
    if level == "interval":
        delta = (c - k) ** 2
        return np.broadcast_to(delta, marginals.shape[:-1] + delta.shape)
    if level == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = np.where(c + k == 0, 0.0, ((c - k) / (c + k)) ** 2)
        return np.broadcast_to(delta, marginals.shape[:-1] + delta.shape)
    # ordinal: (Σ_{g between c and k} n_g − (n_c + n_k)/2)², from the marginal counts n_g.
    cumulative = np.cumsum(marginals, axis=-1)
    low = np.minimum(np.arange(domain.size)[:, None], np.arange(domain.size)[None, :])
    high = np.maximum(np.arange(domain.size)[:, None], np.arange(domain.size)[None, :])
    between = cumulative[..., high] - cumulative[..., low] + marginals[..., low]
    ends = (marginals[..., :, None] + marginals[..., None, :]) / 2.0
    return (between - ends) ** 2


def _alpha_from_coincidences(
    coincidences: np.ndarray, domain: np.ndarray, level: str
) -> np.ndarray:
    """α = 1 − D_o/D_e; NaN where expected disagreement is 0 (a single value is used)."""
    marginals = coincidences.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta = _squared_differences(marginals, domain, level)
    observed = (coincidences * delta).sum(axis=(-2, -1))
    expected = (marginals[..., :, None] * marginals[..., None, :] * delta).sum(
        axis=(-2, -1)
    ) / np.maximum(total - 1.0, 1.0)
    undefined = np.isclose(expected, 0.0, rtol=0.0, atol=1e-12) | (total < 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - observed / expected
    return np.where(undefined, np.nan, alpha)


def coincidence_matrix(ratings, *, value_domain: Sequence[float]) -> np.ndarray:
    """Krippendorff's ``(V, V)`` coincidence matrix over ``value_domain``."""
    counts, _ = _value_counts(ratings, value_domain)
    return _unit_coincidences(counts).sum(axis=0)


def krippendorff_alpha(
    ratings,
    *,
    level: str,
    value_domain: Sequence[float],
    n_boot: int = 0,
    seed: int | np.random.Generator | None = None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """Krippendorff's α at the given ``level`` ("nominal", "ordinal", "interval", "ratio").

    ``value_domain`` is every value a rating may take, in order (``range(1, 8)`` for the
    DIAMONDS 1–7 scale; ``range(K)`` for nominal codes); a rating outside it is an error.
    Missing ratings are NaN or None (or ``MISSING`` when -1 is not in the domain); units with
    fewer than two ratings are not pairable and drop out, as in Krippendorff (2011).
    The optional CI resamples the pairable units.
    """
    if level not in LEVELS:
        raise AgreementInputError(f"level must be one of {LEVELS}; got {level!r}")
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    counts, domain = _value_counts(ratings, value_domain)
    per_unit = _unit_coincidences(counts)
    pairable = counts.sum(axis=1) >= 2
    if not pairable.any():
        raise UndefinedStatisticError(
            "no unit has ratings from at least two raters, so nothing is pairable and α is "
            "undefined"
        )
    estimate = float(_alpha_from_coincidences(per_unit.sum(axis=0), domain, level))
    if np.isnan(estimate):
        used = domain[counts.sum(axis=0) > 0]
        raise UndefinedStatisticError(
            f"every pairable rating is the value {used[0]:g}: expected disagreement is 0 and "
            f"Krippendorff's α is undefined"
        )
    replicates = None
    if n_boot:
        # Units that cannot be paired contribute nothing, so only pairable units are
        # resampled; bootstrap_unit_indices(counts[pairable]) rebuilds the resamples.
        n_values = counts.shape[1]
        resampled = resampled_row_sums(
            per_unit[pairable].reshape(int(pairable.sum()), -1),
            n_boot,
            seed,
            key=counts[pairable],
        ).reshape(n_boot, n_values, n_values)
        replicates = _alpha_from_coincidences(resampled, domain, level)
    return bootstrap_estimate(estimate, replicates, ci_level)
