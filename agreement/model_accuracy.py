"""Model accuracy with scenario-cluster uncertainty (§3.1, App. G, K.1).

Several character-specific questions share one scenario, so items are not independent:
intervals resample scenarios (clusters) with replacement, and paired comparisons flip the
two conditions' labels scenario by scenario. ``correct`` is per-item correctness in [0, 1]
(booleans, or an average over settings such as the Memory-Augmented Avg.).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from statsmodels.stats.multitest import multipletests

from ._core import (
    AgreementInputError,
    BootstrapEstimate,
    as_correctness,
    bootstrap_estimate,
    check_bootstrap_args,
    check_count,
    group_codes,
    make_rng,
)
from .resampling import bootstrap_unit_indices, resampled_row_sums


@dataclass(frozen=True, slots=True)
class SharedClusterBootstrap:
    """Accuracy of several models on the same cluster resamples.

    ``replicates[b, m]`` is model m's accuracy on resample b; use it for rank stability
    (:func:`top_k_membership`) or any other statistic of the shared resamples.
    """

    estimates: tuple[BootstrapEstimate, ...]
    replicates: np.ndarray = field(repr=False)
    n_clusters: int = 0


def _cluster_rows(correct: np.ndarray, clusters: Sequence) -> tuple[tuple, np.ndarray]:
    """Cluster labels (first-appearance order) and per cluster [Σ correct per model, size]."""
    labels, codes = group_codes(clusters, name="clusters", n_items=correct.shape[0])
    rows = np.zeros((len(labels), correct.shape[1] + 1))
    np.add.at(rows[:, :-1], codes, correct)
    rows[:, -1] = np.bincount(codes, minlength=len(labels))
    return labels, rows


def shared_cluster_bootstrap(
    correct,
    clusters: Sequence,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
) -> SharedClusterBootstrap:
    """Accuracy CIs for ``(n_items, n_models)`` correctness from shared scenario resamples.

    A resample draws as many scenarios as there are, with replacement, and takes accuracy
    over all items of the drawn scenarios (a ratio: scenarios differ in size).
    :func:`cluster_resample_labels` lists the scenarios of each resample.
    """
    n_boot, ci_level = check_bootstrap_args(n_boot, seed, ci_level)
    n_boot = check_count(n_boot, "n_boot", minimum=1)  # the replicates are the point here
    matrix = as_correctness(correct, name="correct", ndim=(2,))
    _, rows = _cluster_rows(matrix, clusters)
    sums = resampled_row_sums(rows, n_boot, seed)
    replicates = sums[:, :-1] / sums[:, -1:]
    point = matrix.mean(axis=0)
    estimates = tuple(
        bootstrap_estimate(point[m], replicates[:, m], ci_level) for m in range(matrix.shape[1])
    )
    return SharedClusterBootstrap(estimates, replicates, rows.shape[0])


def cluster_resample_labels(
    correct, clusters: Sequence, *, n_boot: int, seed: int | np.random.Generator | None
) -> list[list]:
    """The scenario labels drawn in each resample of :func:`shared_cluster_bootstrap`."""
    matrix = as_correctness(correct, name="correct", ndim=(1, 2))
    matrix = matrix[:, None] if matrix.ndim == 1 else matrix
    labels, rows = _cluster_rows(matrix, clusters)
    indices = bootstrap_unit_indices(rows, n_boot, seed)
    return [[labels[i] for i in resample] for resample in indices]


def cluster_bootstrap_accuracy(
    correct,
    clusters: Sequence,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
) -> BootstrapEstimate:
    """One model's accuracy with a scenario-cluster bootstrap CI (§3.1)."""
    vector = as_correctness(correct, name="correct", ndim=(1,))
    return shared_cluster_bootstrap(
        vector[:, None], clusters, n_boot=n_boot, seed=seed, ci_level=ci_level
    ).estimates[0]


def top_k_membership(replicates, members: Sequence[int], *, k: int) -> float:
    """Share of resamples in which every model in ``members`` ranks in the top ``k``.

    Ties at the cutoff count as in (App. K.1: "including ties at the second-rank cutoff"):
    a model is in the top k when its accuracy is at least the k-th highest.
    """
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.ndim != 2:
        raise AgreementInputError(f"replicates must be (n_boot, n_models); got {reps.shape}")
    n_models = reps.shape[1]
    k = check_count(k, "k", minimum=1)
    if k > n_models:
        raise AgreementInputError(f"k is {k} but there are only {n_models} models")
    members = list(members)
    if not members:
        raise AgreementInputError("members is empty")
    bad = [m for m in members if not 0 <= int(m) < n_models]
    if bad:
        raise AgreementInputError(f"members {bad} are not model columns 0..{n_models - 1}")
    kth_highest = -np.partition(-reps, k - 1, axis=1)[:, k - 1]
    inside = reps[:, members] >= kth_highest[:, None]
    return float(inside.all(axis=1).mean())


@dataclass(frozen=True, slots=True)
class PairedPermutationTest:
    """Accuracy difference a − b and its two-sided scenario-level permutation p-value."""

    difference: float
    p_value: float
    n_permutations: int
    n_clusters: int


def paired_cluster_permutation_test(
    correct_a,
    correct_b,
    clusters: Sequence,
    *,
    n_permutations: int,
    seed: int | np.random.Generator | None,
) -> PairedPermutationTest:
    """Paired test of accuracy(a) − accuracy(b) on the same items (§3.1, App. G).

    Under the null the two conditions are exchangeable within a scenario, so each scenario's
    summed difference keeps or flips its sign as a whole. Two-sided plus-one Monte Carlo
    p-value: (1 + #{|T*| ≥ |T|}) / (1 + n_permutations).
    """
    n_permutations = check_count(n_permutations, "n_permutations", minimum=1)
    rng = make_rng(seed)
    a = as_correctness(correct_a, name="correct_a", ndim=(1,))
    b = as_correctness(correct_b, name="correct_b", ndim=(1,), n_items=a.size)
    labels, codes = group_codes(clusters, name="clusters", n_items=a.size)
    n_clusters = len(labels)
    cluster_difference = np.bincount(codes, weights=a - b, minlength=n_clusters)
    observed = cluster_difference.sum()
    signs = rng.integers(0, 2, size=(n_permutations, n_clusters), dtype=np.int8) * 2 - 1
    null = signs.astype(np.float64) @ cluster_difference
    # Sums of the same numbers in another order can differ in the last bits.
    tolerance = 1e-9 * max(1.0, np.abs(cluster_difference).sum())
    exceed = int((np.abs(null) >= abs(observed) - tolerance).sum())
    return PairedPermutationTest(
        difference=float(observed / a.size),
        p_value=(1 + exceed) / (1 + n_permutations),
        n_permutations=n_permutations,
        n_clusters=n_clusters,
    )


@dataclass(frozen=True, slots=True)
class HolmCorrection:
    p_values: tuple[float, ...]
    adjusted: tuple[float, ...]
    reject: tuple[bool, ...]
    alpha: float


def holm_correction(p_values: Sequence[float], *, alpha: float = 0.05) -> HolmCorrection:
    """Holm's step-down adjustment (statsmodels ``multipletests(method="holm")``)."""
    values = np.asarray(p_values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise AgreementInputError(f"p_values must be a non-empty 1-D list; got {values.shape}")
    if np.isnan(values).any():
        raise AgreementInputError(f"p-value {int(np.argmax(np.isnan(values)))} is NaN")
    if ((values < 0) | (values > 1)).any():
        index = int(np.argmax((values < 0) | (values > 1)))
        raise AgreementInputError(f"p-value {index} is {values[index]}, outside [0, 1]")
    if not 0 < alpha < 1:
        raise AgreementInputError(f"alpha must be in (0, 1); got {alpha}")
    reject, adjusted, _, _ = multipletests(values, alpha=alpha, method="holm")
    return HolmCorrection(
        p_values=tuple(float(p) for p in values),
        adjusted=tuple(float(p) for p in adjusted),
        reject=tuple(bool(r) for r in reject),
        alpha=float(alpha),
    )
