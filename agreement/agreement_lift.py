"""Agreement lift, for the arbitration analytics (issue 22): how far the adjudicated
outcome agrees with the annotators' blind selections beyond their agreement among
themselves. Intervals resample pairs, as in :mod:`agreement.judge_calibration`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._core import AgreementInputError, BootstrapEstimate, bootstrap_estimate, check_bootstrap_args
from .judge_calibration import _sums


@dataclass(frozen=True, slots=True)
class AgreementLift:
    """The blind judgments' mean pairwise agreement (share of annotator pairs selecting
    the same candidate) against the share of selections matching the adjudicated
    reference, on the same pairs; ``lift`` is the second minus the first."""

    n: int
    blind_agreement: BootstrapEstimate
    outcome_agreement: BootstrapEstimate
    lift: BootstrapEstimate


def agreement_lift(
    selected, reference, *, n_boot: int = 0, seed=None, ci_level: float = 0.95
) -> AgreementLift:
    """``selected`` ``(n, n_annotators)`` candidate codes, ``reference`` ``(n,)`` the
    reference's source candidate (every pair must have one)."""
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    selected = np.asarray(selected)
    if selected.ndim != 2 or selected.shape[0] == 0 or selected.shape[1] < 2:
        raise AgreementInputError(
            f"selected must be (n_pairs, n_annotators ≥ 2); got shape {selected.shape}"
        )
    n, m = selected.shape
    reference = np.asarray(reference).reshape(-1)
    if reference.shape != (n,):
        raise AgreementInputError(f"reference has {reference.size} entries; expected {n}")
    upper = np.triu_indices(m, k=1)
    agreeing = (selected[:, :, None] == selected[:, None, :])[:, upper[0], upper[1]].sum(axis=1)
    hits = (selected == reference[:, None]).sum(axis=1)
    rows = np.column_stack([agreeing, hits])
    blind, outcome = agreeing.mean() / len(upper[0]), hits.mean() / m
    sums = _sums(rows, n_boot, seed)
    rep_blind = None if sums is None else sums[:, 0] / (n * len(upper[0]))
    rep_outcome = None if sums is None else sums[:, 1] / (n * m)
    return AgreementLift(
        n=n,
        blind_agreement=bootstrap_estimate(blind, rep_blind, ci_level),
        outcome_agreement=bootstrap_estimate(outcome, rep_outcome, ci_level),
        lift=bootstrap_estimate(
            outcome - blind, None if sums is None else rep_outcome - rep_blind, ci_level
        ),
    )
