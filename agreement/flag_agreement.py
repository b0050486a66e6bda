"""Agreement of an LLM judge's binary flag with the experts' decision on the same records.

Each record is one pair (judge flag, expert flag), both 0/1: the judge said "defect" or
not, the experts confirmed a defect or not. :func:`flag_agreement` gives the 2×2 counts
(TP: both flag; FP: the judge flags, the experts do not; FN: the experts find a defect
the judge did not flag; TN: neither), Cohen's κ, and the judge's precision (share of its
flags the experts confirmed) and recall (share of the experts' defects it flagged), each
with a percentile bootstrap interval over the records.

The resamples are those of :func:`agreement.resampling.resampled_row_sums` keyed on the
(judge, expert) pair, so :func:`agreement.resampling.bootstrap_unit_indices` with the same
key, ``n_boot`` and seed lists them (a test recomputes the interval from those indices).
A figure with no value on a resample (κ when the resample holds one category only,
precision with no judge flag, recall with no expert defect) is left out of the interval
and counted in ``n_undefined``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ._core import (
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    bootstrap_estimate,
    check_bootstrap_args,
)
from .resampling import resampled_row_sums

#: The cells of the 2×2 table, in the order of the per-record rows.
CELLS = ("tp", "fp", "fn", "tn")


@dataclass(frozen=True)
class FlagAgreement:
    """The figures of one set of (judge, expert) pairs. A figure is None when it has no
    value on the records themselves (``undefined`` says why, by figure name)."""

    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    kappa: BootstrapEstimate | None
    precision: BootstrapEstimate | None
    recall: BootstrapEstimate | None
    undefined: dict

    def as_dict(self) -> dict:
        out = asdict(self)
        for name in ("kappa", "precision", "recall"):
            value = getattr(self, name)
            out[name] = None if value is None else asdict(value)
        return out


def _as_flags(values, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise AgreementInputError(f"{name} must be 1-D, one flag per record; got {array.shape}")
    if array.size and not np.isin(array, (0, 1, True, False)).all():
        raise AgreementInputError(f"{name} must hold 0/1 (or booleans) only")
    return array.astype(np.int64)


def kappa_from_counts(tp, fp, fn, tn):
    """Cohen's κ of a 2×2 table (arrays broadcast); NaN when chance agreement is 1."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (tp + tn) / n
        chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = (observed - chance) / (1.0 - chance)
    return np.where(np.isclose(chance, 1.0, rtol=0.0, atol=1e-12), np.nan, kappa)


def _share(numerator, denominator):
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan
        )


def precision_from_counts(tp, fp, fn, tn):
    return _share(tp, np.asarray(tp) + np.asarray(fp))


def recall_from_counts(tp, fp, fn, tn):
    return _share(tp, np.asarray(tp) + np.asarray(fn))


FIGURES = {
    "kappa": (
        kappa_from_counts,
        "the judge and the experts put every record in one and the same category",
    ),
    "precision": (precision_from_counts, "the judge flagged no record"),
    "recall": (recall_from_counts, "the experts found no defect"),
}


def flag_agreement(
    judge_flags,
    expert_flags,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
) -> FlagAgreement:
    """The 2×2 counts, κ, precision and recall of ``judge_flags`` against ``expert_flags``
    (one 0/1 each per record), with percentile bootstrap intervals over the records."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    judge = _as_flags(judge_flags, "judge_flags")
    expert = _as_flags(expert_flags, "expert_flags")
    if judge.shape != expert.shape:
        raise AgreementInputError(
            f"judge_flags has {judge.size} records and expert_flags {expert.size}; "
            "they must describe the same records"
        )
    if judge.size == 0:
        raise AgreementInputError("there are no records to compare")
    rows = np.column_stack(
        [judge & expert, judge & (1 - expert), (1 - judge) & expert, (1 - judge) & (1 - expert)]
    )
    counts = rows.sum(axis=0)
    replicates = None
    if n_boot:
        key = np.column_stack([judge, expert])
        replicates = resampled_row_sums(rows, n_boot, seed, key=key)
    figures, undefined = {}, {}
    for name, (function, why) in FIGURES.items():
        value = float(function(*counts))
        if np.isnan(value):
            figures[name] = None
            undefined[name] = why
            continue
        boot = None if replicates is None else function(*replicates.T)
        try:
            figures[name] = bootstrap_estimate(value, boot, ci_level)
        except UndefinedStatisticError:  # no resample had a value: no interval
            figures[name] = BootstrapEstimate(value, None, None, ci_level, n_boot, n_boot)
    tp, fp, fn, tn = (int(c) for c in counts)
    return FlagAgreement(
        n=int(judge.size), tp=tp, fp=fp, fn=fn, tn=tn, undefined=undefined, **figures
    )


def flag_agreement_table(
    sets: dict,
    *,
    min_pairs: int,
    n_boot: int,
    seed: int,
    ci_level: float = 0.95,
) -> dict:
    """The figures of several sets of pairs (``{name: (judge_flags, expert_flags)}``, e.g.
    "all" and one per rule), as JSON-able dicts by name. Every set gets its counts; a set
    of fewer than ``min_pairs`` pairs gets no κ, precision or recall (``enough`` false).
    Each set is resampled with the same seed."""
    out = {}
    for name, (judge, expert) in sets.items():
        judge, expert = list(judge), list(expert)
        n = len(judge)
        if n < min_pairs:
            cells = dict.fromkeys(CELLS, 0)
            for j, e in zip(judge, expert, strict=True):
                cells[CELLS[2 * (1 - int(j)) + (1 - int(e))]] += 1
            out[name] = {"n": n, "enough": False, **cells}
            continue
        figures = flag_agreement(judge, expert, n_boot=n_boot, seed=seed, ci_level=ci_level)
        out[name] = {"enough": True, **figures.as_dict()}
    return out


@dataclass(frozen=True)
class WeightedFlagAgreement:
    """The figures of records that stand for different numbers of records (a sampling
    weight each, e.g. the inverse of its chance of being reviewed): the counts are sums of
    weights, so the figures estimate those of the whole population the records were drawn
    from. ``n`` is the number of records, ``total`` the sum of their weights."""

    n: int
    total: float
    tp: float
    fp: float
    fn: float
    tn: float
    kappa: BootstrapEstimate | None
    precision: BootstrapEstimate | None
    recall: BootstrapEstimate | None
    undefined: dict

    def as_dict(self) -> dict:
        out = asdict(self)
        for name in ("kappa", "precision", "recall"):
            value = getattr(self, name)
            out[name] = None if value is None else asdict(value)
        return out


def weighted_flag_agreement(
    judge_flags,
    expert_flags,
    weights,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
) -> WeightedFlagAgreement:
    """:func:`flag_agreement` with a sampling weight per record (inverse-probability
    weighting): each cell of the 2×2 table is the sum of its records' weights, and κ,
    precision and recall are computed from those sums (as scikit-learn's
    ``cohen_kappa_score``, ``precision_score`` and ``recall_score`` with
    ``sample_weight``). The interval resamples the records with their weights (a
    percentile bootstrap over records; it treats the weights as fixed)."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    judge = _as_flags(judge_flags, "judge_flags")
    expert = _as_flags(expert_flags, "expert_flags")
    w = np.asarray(weights, dtype=np.float64)
    if judge.shape != expert.shape or w.shape != judge.shape:
        raise AgreementInputError(
            f"judge_flags, expert_flags and weights have {judge.size}, {expert.size} and "
            f"{w.size} entries; they must describe the same records"
        )
    if judge.size == 0:
        raise AgreementInputError("there are no records to compare")
    if not np.isfinite(w).all() or (w <= 0).any():
        raise AgreementInputError("every weight must be a finite number above 0")
    cells = np.column_stack(
        [judge & expert, judge & (1 - expert), (1 - judge) & expert, (1 - judge) & (1 - expert)]
    )
    rows = cells * w[:, None]
    counts = rows.sum(axis=0)
    replicates = None
    if n_boot:
        key = np.column_stack([judge, expert, w])
        replicates = resampled_row_sums(rows, n_boot, seed, key=key)
    figures, undefined = {}, {}
    for name, (function, why) in FIGURES.items():
        value = float(function(*counts))
        if np.isnan(value):
            figures[name] = None
            undefined[name] = why
            continue
        boot = None if replicates is None else function(*replicates.T)
        try:
            figures[name] = bootstrap_estimate(value, boot, ci_level)
        except UndefinedStatisticError:
            figures[name] = BootstrapEstimate(value, None, None, ci_level, n_boot, n_boot)
    tp, fp, fn, tn = (float(c) for c in counts)
    return WeightedFlagAgreement(
        n=int(judge.size),
        total=float(w.sum()),
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        undefined=undefined,
        **figures,
    )
