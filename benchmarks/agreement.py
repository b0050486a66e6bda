"""How much faster agreement/'s vectorized bootstraps are than a plain per-resample loop.

For each shape the platform meets (App. J: 150 items × 4 annotators × options A–D; the
adjudication stage: 673 pairs × 3 annotators × 3 canonical candidates) it draws the same
10,000 item resamples from one seed, computes Fleiss' κ on each with statsmodels in a loop and
with agreement.fleiss_kappa at once, checks that the two agree, and prints both times and the
ratio. It does the same for the joint item × annotator resampling of mean annotator accuracy.
Nothing here asserts on time; it prints what it measured.

    .venv/bin/python benchmarks/agreement.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import agreement  # noqa: E402
from agreement.constants import HUMAN_BASELINE_SEED, N_BOOTSTRAP  # noqa: E402

REPEATS = 3  # both paths are timed as the best of three runs


def synthetic_ratings(n_items: int, n_raters: int, n_categories: int, seed: int) -> np.ndarray:
    """Ratings that agree with a per-item "true" category about 70% of the time."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, n_items)
    noise = rng.integers(0, n_categories, (n_items, n_raters))
    return np.where(rng.random((n_items, n_raters)) < 0.7, truth[:, None], noise)


def best_time(function, repeats: int = REPEATS) -> tuple[float, object]:
    best = float("inf")
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def bench_fleiss(n_items: int, n_raters: int, n_categories: int) -> None:
    ratings = synthetic_ratings(n_items, n_raters, n_categories, seed=n_items)
    table = agreement.rating_counts(ratings, n_categories=n_categories)

    def vectorized():
        return agreement.fleiss_kappa_replicates(
            table, n_boot=N_BOOTSTRAP, seed=HUMAN_BASELINE_SEED
        )

    def loop():
        # The same resamples, as item indices, then one statsmodels call per resample.
        indices = agreement.bootstrap_unit_indices(table, N_BOOTSTRAP, HUMAN_BASELINE_SEED)
        return np.array([statsmodels_fleiss_kappa(table[rows]) for rows in indices])

    fast_time, fast = best_time(vectorized)
    slow_time, slow = best_time(loop)
    full_time, estimate = best_time(
        lambda: agreement.fleiss_kappa(
            ratings, n_categories=n_categories, n_boot=N_BOOTSTRAP, seed=HUMAN_BASELINE_SEED
        )
    )
    worst = float(np.nanmax(np.abs(fast - slow)))
    if worst > 1e-12:
        raise SystemExit(f"vectorized and statsmodels κ disagree by {worst:.3g}")
    print(
        f"Fleiss' κ, {n_items} items × {n_raters} raters × {n_categories} categories, "
        f"{N_BOOTSTRAP:,} resamples: statsmodels loop {slow_time * 1e3:8.1f} ms | "
        f"agreement {fast_time * 1e3:6.1f} ms | speed-up {slow_time / fast_time:6.1f}× | "
        f"max |Δκ| {worst:.1e} | fleiss_kappa() end to end {full_time * 1e3:.1f} ms, "
        f"κ = {estimate.estimate:.3f} [{estimate.ci_low:.3f}, {estimate.ci_high:.3f}]"
    )


def bench_joint_accuracy(n_items: int, n_annotators: int) -> None:
    rng = np.random.default_rng(7)
    correct = rng.random((n_items, n_annotators)) < 0.8

    def vectorized():
        return agreement.mean_annotator_accuracy(
            correct, n_boot=N_BOOTSTRAP, seed=HUMAN_BASELINE_SEED
        )

    def loop():
        items, annotators = agreement.joint_resample_indices(
            correct, n_annotators, N_BOOTSTRAP, HUMAN_BASELINE_SEED
        )
        reps = np.array(
            [correct[np.ix_(i, a)].mean() for i, a in zip(items, annotators, strict=True)]
        )
        low, high = np.quantile(reps, [0.025, 0.975])
        return low, high

    fast_time, fast = best_time(vectorized)
    slow_time, (low, high) = best_time(loop)
    worst = max(abs(fast.ci_low - low), abs(fast.ci_high - high))
    if worst > 1e-12:
        raise SystemExit(f"vectorized and looped accuracy intervals disagree by {worst:.3g}")
    print(
        f"Mean annotator accuracy, {n_items} items × {n_annotators} annotators, "
        f"{N_BOOTSTRAP:,} joint resamples: numpy loop {slow_time * 1e3:8.1f} ms | "
        f"agreement {fast_time * 1e3:6.1f} ms | speed-up {slow_time / fast_time:6.1f}× | "
        f"CI [{fast.ci_low:.4f}, {fast.ci_high:.4f}] identical"
    )


def main() -> None:
    bench_fleiss(150, 4, 4)
    bench_fleiss(673, 3, 3)
    bench_joint_accuracy(150, 4)


if __name__ == "__main__":
    main()
