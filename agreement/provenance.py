"""Reference-source analyses of model accuracy (seed 000 App. K.1).

Each item's key was selected from one model family's candidates (its *source*). K.1 asks
three things of the models' accuracy on the source subsets, all on one set of scenario
resamples:

* **Shared stratified cluster bootstrap.** A resample draws as many scenarios as there
  are, with replacement; every source subset's accuracy is then taken over the drawn
  scenarios' items of that source. The same resamples serve the rank stability
  (:func:`agreement.top_k_membership`), the Spearman intervals and the interaction
  intervals, as the paper uses "the same 10,000 scenario-cluster resamples".
* **Spearman correlations** between the model rankings of two source subsets
  (:func:`spearman_between_strata`), with percentile intervals from the resamples.
* **Provenance interaction** of a family F (:func:`family_interaction`): F's advantage
  (mean accuracy of F's models minus the mean of the other models) on F-origin items
  minus that advantage on the other items, a difference-in-differences, tested by
  null-restricted scenario-cluster wild-score sign flips (:func:`wild_sign_flip_test`).

``correct`` is ``(n_items, n_models)`` per-item correctness in [0, 1] (for the
Memory-Augmented Avg. the mean over the memory-augmented settings). Every model must have
a value on every item: restrict to the items all models answered before calling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import rankdata

from ._core import (
    AgreementInputError,
    BootstrapEstimate,
    UndefinedStatisticError,
    as_correctness,
    bootstrap_estimate,
    check_bootstrap_args,
    check_count,
    group_codes,
    make_rng,
)
from .model_accuracy import holm_correction
from .resampling import resampled_row_sums

#: Sign-flip draws made and reduced together (bounded memory for 100,000 flips).
_FLIP_CHUNK = 8192


@dataclass(frozen=True, slots=True)
class StratifiedClusterBootstrap:
    """Per-stratum sums of correctness on shared scenario resamples.

    ``sums[s, m]`` is model m's summed correctness on stratum s and ``counts[s]`` the
    stratum's size; ``replicate_sums[b, s, m]`` and ``replicate_counts[b, s]`` the same on
    resample b. Accuracies of a union of strata are ratios of these sums.
    """

    strata: tuple
    sums: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    replicate_sums: np.ndarray = field(repr=False)
    replicate_counts: np.ndarray = field(repr=False)
    n_clusters: int = 0

    def _mask(self, strata) -> np.ndarray:
        unknown = [s for s in strata if s not in self.strata]
        if unknown:
            raise AgreementInputError(f"unknown strata {unknown}; known: {list(self.strata)}")
        return np.array([s in strata for s in self.strata])

    def accuracy(self, strata: Sequence) -> np.ndarray:
        """``(n_models,)`` accuracy over the items of ``strata`` (pooled)."""
        mask = self._mask(strata)
        total = self.counts[mask].sum()
        if total == 0:
            raise UndefinedStatisticError(f"strata {list(strata)} hold no items")
        return self.sums[mask].sum(axis=0) / total

    def replicate_accuracy(self, strata: Sequence) -> np.ndarray:
        """``(n_boot, n_models)``; NaN on a resample that drew no item of ``strata``."""
        mask = self._mask(strata)
        total = self.replicate_counts[:, mask].sum(axis=1)
        sums = self.replicate_sums[:, mask, :].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total[:, None] > 0, sums / total[:, None], np.nan)


def stratified_cluster_bootstrap(
    correct,
    clusters: Sequence,
    strata: Sequence,
    *,
    n_boot: int,
    seed: int | np.random.Generator | None,
) -> StratifiedClusterBootstrap:
    """Shared scenario resamples of ``correct`` with per-stratum sums (App. K.1).

    The resamples depend only on the number of clusters, ``n_boot`` and the seed: resample
    b draws the clusters ``agreement.bootstrap_unit_indices(np.arange(n_clusters), n_boot,
    seed)[b]`` (clusters numbered in order of first appearance).
    """
    n_boot, _ = check_bootstrap_args(n_boot, seed, 0.95)
    n_boot = check_count(n_boot, "n_boot", minimum=1)
    matrix = as_correctness(correct, name="correct", ndim=(2,))
    n_items, n_models = matrix.shape
    cluster_labels, cluster_codes = group_codes(clusters, name="clusters", n_items=n_items)
    stratum_labels, stratum_codes = group_codes(strata, name="strata", n_items=n_items)
    n_clusters, n_strata = len(cluster_labels), len(stratum_labels)
    # Per cluster: for each stratum its model sums, then its item count.
    rows = np.zeros((n_clusters, n_strata, n_models + 1))
    np.add.at(rows, (cluster_codes, stratum_codes), np.c_[matrix, np.ones(n_items)])
    flat = rows.reshape(n_clusters, -1)
    resampled = resampled_row_sums(flat, n_boot, seed, key=np.arange(n_clusters))
    resampled = resampled.reshape(n_boot, n_strata, n_models + 1)
    totals = rows.sum(axis=0)
    return StratifiedClusterBootstrap(
        strata=stratum_labels,
        sums=totals[:, :-1],
        counts=totals[:, -1],
        replicate_sums=resampled[:, :, :-1],
        replicate_counts=resampled[:, :, -1],
        n_clusters=n_clusters,
    )


# --- rank correlations ---------------------------------------------------------------------


def _spearman_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's ρ of each row of ``a`` with the same row of ``b`` (average ranks for
    ties); NaN for a row with NaN or constant ranks."""
    out = np.full(a.shape[0], np.nan)
    finite = np.isfinite(a).all(axis=1) & np.isfinite(b).all(axis=1)
    if not finite.any():
        return out
    ra = rankdata(a[finite], axis=1)
    rb = rankdata(b[finite], axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    denominator = np.sqrt((ra**2).sum(axis=1) * (rb**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(denominator > 0, (ra * rb).sum(axis=1) / denominator, np.nan)
    out[finite] = rho
    return out


@dataclass(frozen=True, slots=True)
class RankCorrelation:
    """Spearman's ρ between the model rankings on strata ``a`` and ``b``."""

    a: object
    b: object
    rho: BootstrapEstimate
    n_models: int


def spearman_between_strata(
    bootstrap: StratifiedClusterBootstrap, *, ci_level: float = 0.95
) -> list[RankCorrelation]:
    """Every pair of strata (in stratum order): ρ of the models' accuracies on the two
    subsets, with a percentile interval over the shared resamples (resamples on which ρ
    is undefined, a subset not drawn or all models tied, are counted in ``n_undefined``).
    A pair whose point ρ is undefined is left out."""
    n_models = bootstrap.sums.shape[1]
    if n_models < 3:
        raise AgreementInputError(f"a rank correlation needs at least 3 models; got {n_models}")
    out = []
    strata = bootstrap.strata
    for i, a in enumerate(strata):
        for b in strata[i + 1 :]:
            if bootstrap.counts[i] == 0 or bootstrap.counts[strata.index(b)] == 0:
                continue
            point = _spearman_rows(
                bootstrap.accuracy([a])[None, :], bootstrap.accuracy([b])[None, :]
            )[0]
            if not np.isfinite(point):
                continue
            replicates = _spearman_rows(
                bootstrap.replicate_accuracy([a]), bootstrap.replicate_accuracy([b])
            )
            try:
                rho = bootstrap_estimate(point, replicates, ci_level)
            except UndefinedStatisticError:
                rho = bootstrap_estimate(point, None, ci_level)
            out.append(RankCorrelation(a, b, rho, n_models))
    return out


# --- provenance interaction -----------------------------------------------------------------


def _interaction_weights(home: np.ndarray) -> np.ndarray:
    """w with Σ w·d = mean(d on home items) − mean(d on the other items)."""
    n_home = int(home.sum())
    n_other = home.size - n_home
    if n_home == 0 or n_other == 0:
        raise UndefinedStatisticError(
            f"an interaction needs home and other items; got {n_home} home and {n_other} other"
        )
    return np.where(home, 1.0 / n_home, -1.0 / n_other)


def _family_gap(matrix: np.ndarray, in_family: np.ndarray) -> np.ndarray:
    """Per item: mean correctness of the family's models minus that of the other models."""
    if not in_family.any() or in_family.all():
        raise UndefinedStatisticError(
            "an interaction needs models inside and outside the family; got "
            f"{int(in_family.sum())} inside and {int((~in_family).sum())} outside"
        )
    return matrix[:, in_family].mean(axis=1) - matrix[:, ~in_family].mean(axis=1)


def _check_interaction_input(correct, in_family, home):
    matrix = as_correctness(correct, name="correct", ndim=(2,))
    in_family = np.asarray(in_family, dtype=bool)
    home = np.asarray(home, dtype=bool)
    if in_family.shape != (matrix.shape[1],):
        raise AgreementInputError(
            f"in_family has shape {in_family.shape}; expected one flag per model "
            f"({matrix.shape[1]})"
        )
    if home.shape != (matrix.shape[0],):
        raise AgreementInputError(
            f"home has shape {home.shape}; expected one flag per item ({matrix.shape[0]})"
        )
    return matrix, in_family, home


def difference_in_differences(correct, in_family, home) -> float:
    """[acc(F) − acc(not F)] on home items − the same on the other items (items equally
    weighted within each side, models equally weighted within each group)."""
    matrix, in_family, home = _check_interaction_input(correct, in_family, home)
    return float(_interaction_weights(home) @ _family_gap(matrix, in_family))


@dataclass(frozen=True, slots=True)
class SignFlipTest:
    statistic: float
    p_value: float
    n_flips: int
    n_clusters: int


def wild_sign_flip_test(
    correct,
    clusters: Sequence,
    in_family,
    home,
    *,
    n_flips: int,
    seed: int | np.random.Generator | None,
) -> SignFlipTest:
    """Two-sided null-restricted scenario-cluster wild-score sign-flip test of the
    difference-in-differences (App. K.1).

    The per-item family gap d is fitted under the null (no interaction: one mean for home
    and other items); each scenario's score is Σ w·(d − d̄) over its items, with w the
    weights that make Σ w·d the interaction. The scores' sum is the observed estimate; a
    flip multiplies each scenario's score by ±1. Plus-one Monte Carlo p-value:
    (1 + #{|T*| ≥ |T|}) / (1 + n_flips).
    """
    n_flips = check_count(n_flips, "n_flips", minimum=1)
    rng = make_rng(seed)
    matrix, in_family, home = _check_interaction_input(correct, in_family, home)
    labels, codes = group_codes(clusters, name="clusters", n_items=matrix.shape[0])
    gap = _family_gap(matrix, in_family)
    weights = _interaction_weights(home)
    scores = np.bincount(codes, weights=weights * (gap - gap.mean()), minlength=len(labels))
    observed = float(scores.sum())
    tolerance = 1e-9 * max(1.0, np.abs(scores).sum())
    exceed = 0
    for start in range(0, n_flips, _FLIP_CHUNK):
        size = min(_FLIP_CHUNK, n_flips - start)
        signs = rng.integers(0, 2, size=(size, len(labels)), dtype=np.int8) * 2 - 1
        exceed += int(
            (np.abs(signs.astype(np.float64) @ scores) >= abs(observed) - tolerance).sum()
        )
    return SignFlipTest(
        statistic=observed,
        p_value=(1 + exceed) / (1 + n_flips),
        n_flips=n_flips,
        n_clusters=len(labels),
    )


@dataclass(frozen=True, slots=True)
class FamilyInteraction:
    """One family's provenance interaction: advantages in proportions (not points)."""

    family: object
    n_models_in: int
    n_models_out: int
    n_home_items: int
    n_other_items: int
    advantage_home: float
    advantage_other: float
    estimate: BootstrapEstimate
    p_value: float
    p_holm: float
    reject: bool
    n_flips: int


def family_interactions(
    bootstrap: StratifiedClusterBootstrap,
    correct,
    clusters: Sequence,
    strata: Sequence,
    model_families: Sequence,
    *,
    families: Sequence,
    n_flips: int,
    seed: int | np.random.Generator | None,
    ci_level: float = 0.95,
    alpha: float = 0.05,
) -> list[FamilyInteraction]:
    """The interaction of each family in ``families`` that has home items, other items,
    models inside and models outside; intervals from ``bootstrap`` (built on the same
    ``correct``, ``clusters`` and ``strata``), sign-flip p-values each from a fresh
    generator on ``seed`` (so each test reproduces on its own), Holm over the families
    tested."""
    matrix = as_correctness(correct, name="correct", ndim=(2,))
    strata = list(strata)
    model_families = list(model_families)
    if len(model_families) != matrix.shape[1]:
        raise AgreementInputError(
            f"model_families has {len(model_families)} entries; expected {matrix.shape[1]}"
        )
    rows = []
    for family in families:
        home = np.array([s == family for s in strata])
        in_family = np.array([f == family for f in model_families])
        if not home.any() or home.all() or not in_family.any() or in_family.all():
            continue
        others = [s for s in bootstrap.strata if s != family]

        def advantage(acc, inside=in_family):
            return acc[..., inside].mean(axis=-1) - acc[..., ~inside].mean(axis=-1)

        adv_home = float(advantage(bootstrap.accuracy([family])))
        adv_other = float(advantage(bootstrap.accuracy(others)))
        replicates = advantage(bootstrap.replicate_accuracy([family])) - advantage(
            bootstrap.replicate_accuracy(others)
        )
        try:
            estimate = bootstrap_estimate(adv_home - adv_other, replicates, ci_level)
        except UndefinedStatisticError:
            estimate = bootstrap_estimate(adv_home - adv_other, None, ci_level)
        test = wild_sign_flip_test(matrix, clusters, in_family, home, n_flips=n_flips, seed=seed)
        rows.append(
            (
                family,
                int(in_family.sum()),
                int((~in_family).sum()),
                int(home.sum()),
                int((~home).sum()),
                adv_home,
                adv_other,
                estimate,
                test,
            )
        )
    if not rows:
        return []
    holm = holm_correction([r[-1].p_value for r in rows], alpha=alpha)
    return [
        FamilyInteraction(*r[:-1], r[-1].p_value, adj, rej, r[-1].n_flips)
        for r, adj, rej in zip(rows, holm.adjusted, holm.reject, strict=True)
    ]
