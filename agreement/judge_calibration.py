"""Could an LLM judge stand in for one of the experts? Calibration of a judge that did the
annotators' blinded three-candidate comparison (issue 22; seed 002 §4.5 is the model).

Inputs are per-pair arrays over the same ``n`` pairs:

* **selections** are category codes ``0..n_categories-1`` of the selected candidate's model
  family (the same three families on every pair, so the codes are comparable across pairs);
  humans are ``(n, n_annotators)`` in annotator slots, the judge ``(n,)`` or, with several
  candidate orders per pair, ``(n, n_orders)``;
* **ratings** are scored with :func:`rating_scores`: suitability flagged 0, "partial
  revisions" 1, "as-is" 2.

Every interval resamples pairs: within one call all figures use the same resamples,
``bootstrap_unit_indices(np.arange(n)[:, None], n_boot, seed)``, so a reference loop over
those indices reproduces each replicate. :func:`consensus_routing` is App. D.2's routing
rule itself; the platform's router (``adjudication.arbitration.services``) calls it too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._core import (
    MISSING,
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    as_category_matrix,
    bootstrap_estimate,
    check_bootstrap_args,
)
from .judge import JudgeHumanAgreement, judge_human_agreement
from .nominal import _cohen_disagreement_weights, _cohen_from_confusion, _fleiss_from_sums
from .resampling import resampled_row_sums

#: The rating scale of the calibration: the guideline's answers as ordered scores.
RATING_FLAGGED, RATING_PARTIAL, RATING_AS_IS = 0, 1, 2

# --- App. D.2's routing rule --------------------------------------------------------------------

REASON_FLAGGED = "suitability flagged"
REASON_DIFFERENT = "different candidates selected"
REASON_PARTIAL = "partial revisions requested"


def consensus_routing(*, selected, as_is, flagged) -> tuple[bool, list[str]]:
    """(adopted as reference?, reasons for escalation) for one pair's judgments (App. D.2):
    a unanimous selection, every rating "as-is" and no suitability flag adopt the selected
    candidate as the reference; anything else goes to arbitration."""
    selected, as_is, flagged = list(selected), list(as_is), list(flagged)
    if not selected:
        raise AgreementInputError("routing needs at least one judgment")
    reasons = []
    if any(flagged):
        reasons.append(REASON_FLAGGED)
    if len(set(selected)) > 1:
        reasons.append(REASON_DIFFERENT)
    if not all(as_is):
        reasons.append(REASON_PARTIAL)
    return not reasons, reasons


# --- shared plumbing ----------------------------------------------------------------------------


def _codes(values, *, n_categories: int, name: str, n: int | None = None) -> np.ndarray:
    matrix = np.asarray(values)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    codes = as_category_matrix(
        matrix, n_categories=n_categories, name=name, axes=("pair", "column"), allow_missing=False
    )
    if n is not None and codes.shape[0] != n:
        raise AgreementInputError(f"{name} has {codes.shape[0]} pairs; expected {n}")
    return codes


def _bools(values, *, name: str, shape: tuple[int, ...]) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim == 1 and len(shape) == 2:
        array = array[:, None]
    if array.shape != shape:
        raise AgreementInputError(f"{name} has shape {array.shape}; expected {shape}")
    return array.astype(bool)


def _sums(rows: np.ndarray, n_boot: int, seed) -> np.ndarray | None:
    """Per resample of the pairs, the sums of the per-pair rows (None without a bootstrap)."""
    if not n_boot:
        return None
    key = np.arange(rows.shape[0])[:, None]
    return resampled_row_sums(rows.astype(np.float64), n_boot, seed, key=key)


def _ratio(numerator: float, denominator: float, what: str) -> float:
    if denominator == 0:
        raise UndefinedStatisticError(f"{what}: there is nothing to count")
    return numerator / denominator


def _replicate_ratio(sums, numerator: int, denominator: int) -> np.ndarray | None:
    if sums is None:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return sums[:, numerator] / sums[:, denominator]


# --- selection agreement ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SelectionAgreement:
    """Judge–human κ (mean of Cohen's κ with each annotator slot) beside human–human
    agreement on the same pairs: Fleiss' κ of the annotators and their mean pairwise κ.
    ``difference`` is judge–human minus human–human mean pairwise κ."""

    n: int
    judge_human_kappa: BootstrapEstimate
    judge_kappa_by_slot: tuple[float, ...]
    human_fleiss_kappa: BootstrapEstimate
    human_pairwise_kappa: BootstrapEstimate
    difference: BootstrapEstimate


def _confusion_rows(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    rows = np.zeros((a.size, k * k))
    rows[np.arange(a.size), a * k + b] = 1.0
    return rows


def selection_agreement(
    judge,
    humans,
    *,
    n_categories: int,
    n_boot: int = 0,
    seed=None,
    ci_level: float = 0.95,
) -> SelectionAgreement:
    """Cohen's κ of the judge's selection with each annotator slot, averaged, beside the
    annotators' own agreement. ``judge`` is ``(n,)``: one order per pair (the first)."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    humans = _codes(humans, n_categories=n_categories, name="humans")
    n, m = humans.shape
    if m < 2:
        raise AgreementInputError(f"human–human agreement needs at least 2 annotators; got {m}")
    judge = _codes(judge, n_categories=n_categories, name="judge", n=n)[:, 0]
    k = n_categories
    disagreement = _cohen_disagreement_weights(k, None)
    human_pairs = [(r, s) for r in range(m) for s in range(r + 1, m)]
    blocks = [_confusion_rows(judge, humans[:, slot], k) for slot in range(m)]
    blocks += [_confusion_rows(humans[:, r], humans[:, s], k) for r, s in human_pairs]
    counts = np.zeros((n, k))
    np.add.at(counts, (np.repeat(np.arange(n), m), humans.ravel()), 1)
    numerators = (counts * counts).sum(axis=1) - m
    rows = np.column_stack([*blocks, counts, numerators])

    def kappas(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sums = np.atleast_2d(sums)
        confusions = sums[:, : len(blocks) * k * k].reshape(-1, len(blocks), k, k)
        cohen = _cohen_from_confusion(confusions, disagreement)
        fleiss = _fleiss_from_sums(sums[:, -1] / (m * (m - 1)), sums[:, -1 - k : -1], n, m)
        return cohen[:, :m], cohen[:, m:].mean(axis=1), fleiss

    judge_slots, pairwise, fleiss = kappas(rows.sum(axis=0))
    if np.isnan(judge_slots).any():
        slot = int(np.argmax(np.isnan(judge_slots[0])))
        raise UndefinedStatisticError(
            f"the judge and annotator slot {slot} each selected one and the same family on "
            f"every pair: chance agreement is 1 and Cohen's κ is undefined"
        )
    if np.isnan(fleiss).any() or np.isnan(pairwise).any():
        raise UndefinedStatisticError(
            "the annotators selected one and the same family on every pair: chance agreement "
            "is 1 and human–human κ is undefined"
        )
    judge_mean = judge_slots.mean(axis=1)
    replicates = _sums(rows, n_boot, seed)
    reps = kappas(replicates) if replicates is not None else None
    rep_judge = reps[0].mean(axis=1) if reps else None
    return SelectionAgreement(
        n=n,
        judge_human_kappa=bootstrap_estimate(judge_mean[0], rep_judge, ci_level),
        judge_kappa_by_slot=tuple(float(v) for v in judge_slots[0]),
        human_fleiss_kappa=bootstrap_estimate(fleiss[0], reps[2] if reps else None, ci_level),
        human_pairwise_kappa=bootstrap_estimate(pairwise[0], reps[1] if reps else None, ci_level),
        difference=bootstrap_estimate(
            judge_mean[0] - pairwise[0], rep_judge - reps[1] if reps else None, ci_level
        ),
    )


# --- agreement with the adjudicated outcome -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutcomeAgreement:
    """Share of pairs whose reference came from the candidate the judge selected, beside
    the same share for the annotators (all their selections pooled; per slot too)."""

    n: int
    judge: BootstrapEstimate
    humans: BootstrapEstimate
    human_by_slot: tuple[float, ...]


def outcome_agreement(
    judge, humans, reference, *, n_categories: int, n_boot: int = 0, seed=None, ci_level=0.95
) -> OutcomeAgreement:
    """``reference`` is the code of the adopted or edited reference's source candidate, or
    ``MISSING`` where the reference came from no candidate (rewritten, discarded): those
    pairs are left out."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    humans = _codes(humans, n_categories=n_categories, name="humans")
    n, m = humans.shape
    judge = _codes(judge, n_categories=n_categories, name="judge", n=n)[:, 0]
    reference = np.asarray(reference, dtype=np.int64)
    if reference.shape != (n,):
        raise AgreementInputError(f"reference has shape {reference.shape}; expected ({n},)")
    keep = reference != MISSING
    if not keep.any():
        raise UndefinedStatisticError(
            f"none of the {n} pairs has a reference adopted or edited from a candidate"
        )
    judge, humans, reference = judge[keep], humans[keep], reference[keep]
    judge_hit = (judge == reference).astype(float)
    human_hits = (humans == reference[:, None]).astype(float)
    rows = np.column_stack([judge_hit, human_hits.sum(axis=1), np.ones(judge.size)])
    sums = _sums(rows, n_boot, seed)
    kept = int(keep.sum())
    return OutcomeAgreement(
        n=kept,
        judge=bootstrap_estimate(judge_hit.mean(), _replicate_ratio(sums, 0, 2), ci_level),
        humans=bootstrap_estimate(
            human_hits.mean(),
            None if sums is None else sums[:, 1] / (m * sums[:, 2]),
            ci_level,
        ),
        human_by_slot=tuple(float(v) for v in human_hits.mean(axis=0)),
    )


# --- replace one expert -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplaceOneExpert:
    """The judge in place of each annotator slot in turn, routing re-applied (App. D.2).

    Per slot: how many pairs change route (``to_arbitration``: were adopted unanimously,
    now escalated; ``to_adoption``: were escalated, now adopted), and ``reference_changed``:
    pairs now adopted unanimously with a candidate other than the actual reference's source
    (a pair now escalated would be the arbitrator's to decide, so it is not counted there).
    The two shares average the slots, per pair, with an interval."""

    n: int
    to_arbitration: tuple[int, ...]
    to_adoption: tuple[int, ...]
    reference_changed: tuple[int, ...]
    routing_changed_share: BootstrapEstimate
    reference_changed_share: BootstrapEstimate

    @property
    def routing_changed(self) -> tuple[int, ...]:
        return tuple(a + b for a, b in zip(self.to_arbitration, self.to_adoption, strict=True))


def replace_one_expert(
    *,
    judge_selected,
    judge_as_is,
    judge_flagged,
    human_selected,
    human_as_is,
    human_flagged,
    reference,
    n_boot: int = 0,
    seed=None,
    ci_level: float = 0.95,
) -> ReplaceOneExpert:
    """Selections are candidate codes (any integers naming the pair's candidates);
    ``reference`` is the actual reference's source candidate, ``MISSING`` if none."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    human_selected = np.asarray(human_selected)
    if human_selected.ndim != 2 or human_selected.shape[0] == 0:
        raise AgreementInputError(
            f"human_selected must be (n_pairs, n_annotators); got shape {human_selected.shape}"
        )
    n, m = human_selected.shape
    human_as_is = _bools(human_as_is, name="human_as_is", shape=(n, m))
    human_flagged = _bools(human_flagged, name="human_flagged", shape=(n, m))
    judge_selected = np.asarray(judge_selected).reshape(-1)
    judge_as_is = _bools(judge_as_is, name="judge_as_is", shape=(n,))
    judge_flagged = _bools(judge_flagged, name="judge_flagged", shape=(n,))
    reference = np.asarray(reference).reshape(-1)
    if judge_selected.shape != (n,) or reference.shape != (n,):
        raise AgreementInputError(f"judge_selected and reference need one entry per pair ({n})")
    routed = np.zeros((n, m, 2))  # per pair and slot: route changed, reference changed
    to_arbitration, to_adoption = np.zeros(m, int), np.zeros(m, int)
    for i in range(n):
        actual, _ = consensus_routing(
            selected=human_selected[i], as_is=human_as_is[i], flagged=human_flagged[i]
        )
        for slot in range(m):
            selected = human_selected[i].copy()
            as_is, flagged = human_as_is[i].copy(), human_flagged[i].copy()
            selected[slot], as_is[slot], flagged[slot] = (
                judge_selected[i],
                judge_as_is[i],
                judge_flagged[i],
            )
            adopted, _ = consensus_routing(selected=selected, as_is=as_is, flagged=flagged)
            routed[i, slot, 0] = adopted != actual
            to_arbitration[slot] += actual and not adopted
            to_adoption[slot] += adopted and not actual
            routed[i, slot, 1] = adopted and selected[0] != reference[i]
    per_pair = routed.mean(axis=1)
    sums = _sums(per_pair, n_boot, seed)
    return ReplaceOneExpert(
        n=n,
        to_arbitration=tuple(int(v) for v in to_arbitration),
        to_adoption=tuple(int(v) for v in to_adoption),
        reference_changed=tuple(int(v) for v in routed[:, :, 1].sum(axis=0)),
        routing_changed_share=bootstrap_estimate(
            per_pair[:, 0].mean(), None if sums is None else sums[:, 0] / n, ci_level
        ),
        reference_changed_share=bootstrap_estimate(
            per_pair[:, 1].mean(), None if sums is None else sums[:, 1] / n, ci_level
        ),
    )


# --- position consistency and position bias -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class PositionConsistency:
    """``consistent``: share of pairs whose selected candidate is the same in every order
    (None with one order per pair). ``letter_shares``: share of the judge's selections per
    displayed letter; ``chi2_p`` tests them against a uniform choice (selections of one pair
    are not independent, so read it as descriptive)."""

    n: int
    n_orders: int
    consistent: BootstrapEstimate | None
    letter_counts: tuple[int, ...]
    letter_shares: tuple[BootstrapEstimate, ...]
    chi2_p: float


def position_consistency(
    selected, letters, *, n_letters: int = 3, n_boot: int = 0, seed=None, ci_level=0.95
) -> PositionConsistency:
    """``selected`` ``(n, n_orders)``: the candidate code chosen in each order; ``letters``
    ``(n, n_orders)``: the displayed letter chosen, coded ``0..n_letters-1``."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    letters = _codes(letters, n_categories=n_letters, name="letters")
    n, n_orders = letters.shape
    selected = np.asarray(selected)
    if selected.ndim == 1:
        selected = selected[:, None]
    if selected.shape != letters.shape:
        raise AgreementInputError(
            f"selected has shape {selected.shape} and letters {letters.shape}; one entry per "
            f"pair and order in both"
        )
    same = (selected == selected[:, :1]).all(axis=1).astype(float)
    letter_counts = np.zeros((n, n_letters))
    np.add.at(letter_counts, (np.repeat(np.arange(n), n_orders), letters.ravel()), 1)
    sums = _sums(np.column_stack([same, letter_counts]), n_boot, seed)
    totals = letter_counts.sum(axis=0)
    shares = tuple(
        bootstrap_estimate(
            totals[c] / (n * n_orders),
            None if sums is None else sums[:, 1 + c] / (n * n_orders),
            ci_level,
        )
        for c in range(n_letters)
    )
    consistent = None
    if n_orders > 1:
        consistent = bootstrap_estimate(
            same.mean(), None if sums is None else sums[:, 0] / n, ci_level
        )
    return PositionConsistency(
        n=n,
        n_orders=n_orders,
        consistent=consistent,
        letter_counts=tuple(int(v) for v in totals),
        letter_shares=shares,
        chi2_p=float(stats.chisquare(totals).pvalue),
    )


# --- self-preference ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SelfPreference:
    """How often the judge selects its own family's candidate (mean over orders, then
    pairs) against how often the annotators select that family on the same pairs."""

    n: int
    judge_rate: BootstrapEstimate
    human_rate: BootstrapEstimate
    difference: BootstrapEstimate


def self_preference(
    judge_selected,
    human_selected,
    *,
    judge_family: int,
    n_categories: int,
    n_boot: int = 0,
    seed=None,
    ci_level: float = 0.95,
) -> SelfPreference:
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    humans = _codes(human_selected, n_categories=n_categories, name="human_selected")
    judge = _codes(judge_selected, n_categories=n_categories, name="judge_selected", n=len(humans))
    if not 0 <= judge_family < n_categories:
        raise AgreementInputError(
            f"judge_family {judge_family} is not one of 0..{n_categories - 1}"
        )
    judge_own = (judge == judge_family).mean(axis=1)
    human_own = (humans == judge_family).mean(axis=1)
    sums = _sums(np.column_stack([judge_own, human_own]), n_boot, seed)
    n = humans.shape[0]
    rep = None if sums is None else sums / n
    return SelfPreference(
        n=n,
        judge_rate=bootstrap_estimate(
            judge_own.mean(), None if rep is None else rep[:, 0], ci_level
        ),
        human_rate=bootstrap_estimate(
            human_own.mean(), None if rep is None else rep[:, 1], ci_level
        ),
        difference=bootstrap_estimate(
            judge_own.mean() - human_own.mean(),
            None if rep is None else rep[:, 0] - rep[:, 1],
            ci_level,
        ),
    )


# --- rating calibration -------------------------------------------------------------------------


def rating_scores(*, flagged, as_is) -> np.ndarray:
    """Suitability flagged → 0, "partial revisions" → 1, "as-is" → 2 (elementwise)."""
    flagged = np.asarray(flagged, dtype=bool)
    as_is = np.asarray(as_is, dtype=bool)
    if flagged.shape != as_is.shape:
        raise AgreementInputError(f"flagged {flagged.shape} and as_is {as_is.shape} differ")
    return np.where(flagged, RATING_FLAGGED, np.where(as_is, RATING_AS_IS, RATING_PARTIAL))


@dataclass(frozen=True, slots=True)
class RatingCalibration:
    """Per pair the judge's score (mean over orders) against the annotators' mean:
    ``agreement`` holds r, ρ, τ-b with p-values, the means and the calibration line; the
    intervals resample pairs; ``bias`` is judge mean minus human mean."""

    agreement: JudgeHumanAgreement
    judge_scores: np.ndarray
    human_scores: np.ndarray
    pearson: BootstrapEstimate
    spearman: BootstrapEstimate
    kendall: BootstrapEstimate
    bias: BootstrapEstimate

    @property
    def n(self) -> int:
        return self.agreement.n


def _weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r per row of weights ``w`` (n_boot, C) over cell values (C,) or (n_boot, C)."""
    total = w.sum(axis=1, keepdims=True)
    mx = (w * x).sum(axis=1, keepdims=True) / total
    my = (w * y).sum(axis=1, keepdims=True) / total
    dx, dy = x - mx, y - my
    sxy = (w * dx * dy).sum(axis=1)
    sxx, syy = (w * dx * dx).sum(axis=1), (w * dy * dy).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = sxy / np.sqrt(sxx * syy)
    return np.where(np.isclose(sxx, 0, atol=1e-12) | np.isclose(syy, 0, atol=1e-12), np.nan, r)


def _average_ranks(w: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Average rank of each cell's value within each resample (ties share a rank)."""
    distinct, which = np.unique(values, return_inverse=True)
    per_value = np.zeros((w.shape[0], distinct.size))
    np.add.at(per_value.T, which, w.T)
    below = np.cumsum(per_value, axis=1) - per_value
    rank = below + (per_value + 1) / 2
    return rank[:, which]


def _kendall_from_cells(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    s = np.einsum("bc,cd,bd->b", w, sign, w) / 2
    total = w.sum(axis=1)
    pairs = total * (total - 1) / 2

    def tied(values):
        distinct, which = np.unique(values, return_inverse=True)
        per_value = np.zeros((w.shape[0], distinct.size))
        np.add.at(per_value.T, which, w.T)
        return (per_value * (per_value - 1) / 2).sum(axis=1)

    with np.errstate(divide="ignore", invalid="ignore"):
        tau = s / np.sqrt((pairs - tied(x)) * (pairs - tied(y)))
    return np.where(np.isfinite(tau), tau, np.nan)


def rating_calibration(
    judge_scores, human_scores, *, n_boot: int = 0, seed=None, ci_level: float = 0.95
) -> RatingCalibration:
    """``judge_scores`` ``(n,)`` or ``(n, n_orders)``, ``human_scores`` ``(n, n_annotators)``,
    each a :func:`rating_scores` value; averaged per pair before comparing."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    judge = np.asarray(judge_scores, dtype=np.float64)
    human = np.asarray(human_scores, dtype=np.float64)
    judge = judge.mean(axis=1) if judge.ndim == 2 else judge
    human = human.mean(axis=1) if human.ndim == 2 else human
    result = judge_human_agreement(judge, human)
    reps = {"pearson": None, "spearman": None, "kendall": None, "bias": None}
    if n_boot:
        # Pairs with the same (judge, human) scores are interchangeable: a resample is how
        # many pairs of each distinct cell it draws, and every statistic follows from that.
        cells, which = np.unique(np.column_stack([judge, human]), axis=0, return_inverse=True)
        one_hot = np.zeros((judge.size, len(cells)))
        one_hot[np.arange(judge.size), which.reshape(-1)] = 1.0
        w = _sums(one_hot, n_boot, seed)
        x, y = cells[:, 0], cells[:, 1]
        reps["pearson"] = _weighted_pearson(w, x, y)
        reps["spearman"] = _weighted_pearson(w, _average_ranks(w, x), _average_ranks(w, y))
        reps["kendall"] = _kendall_from_cells(w, x, y)
        reps["bias"] = (w @ (x - y)) / w.sum(axis=1)
    return RatingCalibration(
        agreement=result,
        judge_scores=judge,
        human_scores=human,
        pearson=bootstrap_estimate(result.pearson_r, reps["pearson"], ci_level),
        spearman=bootstrap_estimate(result.spearman_rho, reps["spearman"], ci_level),
        kendall=bootstrap_estimate(result.kendall_tau, reps["kendall"], ci_level),
        bias=bootstrap_estimate(result.judge_mean - result.human_mean, reps["bias"], ci_level),
    )
