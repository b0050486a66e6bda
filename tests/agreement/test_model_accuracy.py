"""Scenario-cluster bootstrap, paired scenario permutation tests and Holm (§3.1, App. G, K.1)."""

import gc
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import agreement
from agreement import AgreementInputError
from agreement.constants import CLUSTER_BOOTSTRAP_SEED, SIGN_FLIP_SEED


def clustered_items(rng, n_clusters=64, n_models=3):
    sizes = rng.integers(8, 12, n_clusters)  # the release has 8–11 items per scenario
    clusters = np.repeat([f"SCN_{g}" for g in range(n_clusters)], sizes)
    difficulty = np.repeat(rng.normal(size=n_clusters), sizes)
    skill = np.linspace(-0.5, 0.5, n_models)
    p = 1 / (1 + np.exp(-(difficulty[:, None] + skill[None, :])))
    return rng.random(p.shape) < p, clusters


def test_cluster_bootstrap_equals_a_reference_loop_over_drawn_scenarios():
    correct, clusters = clustered_items(np.random.default_rng(1))
    result = agreement.shared_cluster_bootstrap(
        correct, clusters, n_boot=300, seed=CLUSTER_BOOTSTRAP_SEED
    )
    drawn = agreement.cluster_resample_labels(
        correct, clusters, n_boot=300, seed=CLUSTER_BOOTSTRAP_SEED
    )
    loop = np.array(
        [
            np.concatenate([correct[clusters == label] for label in labels]).mean(axis=0)
            for labels in drawn
        ]
    )
    np.testing.assert_allclose(result.replicates, loop, atol=1e-12)
    for m, estimate in enumerate(result.estimates):
        assert estimate.estimate == correct[:, m].mean()
        low, high = np.quantile(loop[:, m], [0.025, 0.975])
        assert (estimate.ci_low, estimate.ci_high) == pytest.approx((low, high), abs=1e-12)
        assert estimate.ci_low <= estimate.estimate <= estimate.ci_high


def test_cluster_intervals_are_wider_than_item_intervals_when_scenarios_matter():
    correct, clusters = clustered_items(np.random.default_rng(2), n_models=1)
    by_scenario = agreement.cluster_bootstrap_accuracy(correct[:, 0], clusters, n_boot=2000, seed=1)
    by_item = agreement.cluster_bootstrap_accuracy(
        correct[:, 0], np.arange(correct.shape[0]), n_boot=2000, seed=1
    )
    assert by_scenario.ci_high - by_scenario.ci_low > by_item.ci_high - by_item.ci_low


def test_cluster_bootstrap_is_reproducible_and_accepts_averaged_correctness():
    correct, clusters = clustered_items(np.random.default_rng(3))
    memory_augmented_avg = correct.mean(axis=1)  # e.g. the mean over three settings
    first = agreement.cluster_bootstrap_accuracy(
        memory_augmented_avg, clusters, n_boot=500, seed=CLUSTER_BOOTSTRAP_SEED
    )
    again = agreement.cluster_bootstrap_accuracy(
        memory_augmented_avg, clusters, n_boot=500, seed=CLUSTER_BOOTSTRAP_SEED
    )
    assert first == again
    assert first.estimate == pytest.approx(memory_augmented_avg.mean())


@pytest.mark.parametrize(
    ("correct", "clusters", "message"),
    [
        ([1, 0, 2], ["a", "a", "b"], r"correct at \(2,\) is 2.0; correctness must lie in \[0, 1\]"),
        ([1, 0, np.nan], ["a", "a", "b"], "missing"),
        ([1, 0, 1], ["a", "a"], "clusters has 2 entries; expected 3"),
        ([1, 0, 1], ["a", None, "b"], "clusters is missing for item 1"),
        ([], [], "empty"),
    ],
)
def test_cluster_bootstrap_input_errors(correct, clusters, message):
    with pytest.raises(AgreementInputError, match=message):
        agreement.cluster_bootstrap_accuracy(correct, clusters, n_boot=10, seed=1)


def test_top_k_membership_matches_a_ranking_loop_with_ties_at_the_cutoff():
    rng = np.random.default_rng(4)
    replicates = rng.integers(0, 6, (400, 5)) / 5  # coarse values: many ties
    for members, k in (([0, 1], 2), ([3], 1), ([0, 2, 4], 3)):
        expected = np.mean(
            [
                all((row > row[m]).sum() < k for m in members)  # rank 1 + #strictly better ≤ k
                for row in replicates
            ]
        )
        assert agreement.top_k_membership(replicates, members, k=k) == pytest.approx(expected)
    tied = np.array([[0.5, 0.6, 0.6]])
    assert agreement.top_k_membership(tied, [2], k=1) == 1.0  # tied for first: in the top 1
    with pytest.raises(AgreementInputError, match="k is 4 but there are only 3 models"):
        agreement.top_k_membership(tied, [0], k=4)


# --- paired scenario-level permutation test ----------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 10), st.integers(0, 2**32 - 1))
def test_paired_permutation_p_value_agrees_with_scipys_exact_test(n_clusters, seed):
    rng = np.random.default_rng(seed)
    correct, clusters = clustered_items(rng, n_clusters=n_clusters, n_models=2)
    a, b = correct[:, 0], correct[:, 1]
    labels = list(dict.fromkeys(clusters))
    sums_a = np.array([a[clusters == g].sum() for g in labels], dtype=float)
    sums_b = np.array([b[clusters == g].sum() for g in labels], dtype=float)
    exact = stats.permutation_test(
        (sums_a, sums_b),
        lambda x, y, axis: np.sum(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        vectorized=True,
    )
    result = agreement.paired_cluster_permutation_test(
        a, b, clusters, n_permutations=20_000, seed=SIGN_FLIP_SEED
    )
    assert result.difference == pytest.approx(a.mean() - b.mean())
    if sums_a.sum() == sums_b.sum():
        assert result.p_value == 1.0
    else:
        assert result.p_value == pytest.approx(min(1.0, exact.pvalue), abs=0.015)


def test_paired_permutation_detects_a_consistent_gain_and_is_reproducible():
    rng = np.random.default_rng(5)
    correct, clusters = clustered_items(rng, n_models=1)
    better = correct[:, 0] | (rng.random(correct.shape[0]) < 0.2)
    result = agreement.paired_cluster_permutation_test(
        better, correct[:, 0], clusters, n_permutations=10_000, seed=SIGN_FLIP_SEED
    )
    assert result.p_value == pytest.approx(1 / 10_001)  # every flip is smaller: plus-one floor
    assert result.n_clusters == 64
    assert result == agreement.paired_cluster_permutation_test(
        better, correct[:, 0], clusters, n_permutations=10_000, seed=SIGN_FLIP_SEED
    )


def test_paired_permutation_needs_the_same_items():
    with pytest.raises(AgreementInputError, match="correct_b has 2 items"):
        agreement.paired_cluster_permutation_test(
            [1, 0, 1], [1, 0], ["a", "b", "c"], n_permutations=10, seed=1
        )


# --- Holm ------------------------------------------------------------------------------------


def holm_by_hand(p_values):
    """Holm (1979): sort ascending, multiply the i-th smallest by (m − i), keep monotone."""
    m = len(p_values)
    order = np.argsort(p_values)
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


@contextmanager
def objects_alive_now_left_out_of_collections():
    """statsmodels' multipletests ends with a full garbage collection, which walks every
    object of this process (Django, the apps, Hypothesis: most of a second each call).
    gc.freeze() moves the objects alive now out of the collector's sight until
    gc.unfreeze(), so the collection inside only walks what the call itself made; the
    call computes the same."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=48))
def test_holm_matches_the_step_down_procedure(p_values):
    with objects_alive_now_left_out_of_collections():
        result = agreement.holm_correction(p_values, alpha=0.05)
    np.testing.assert_allclose(result.adjusted, holm_by_hand(np.array(p_values)), atol=1e-12)
    assert result.reject == tuple(a <= 0.05 for a in result.adjusted)


def test_holm_worked_example_and_errors():
    result = agreement.holm_correction([0.01, 0.04, 0.03, 0.005])
    assert result.adjusted == pytest.approx((0.03, 0.06, 0.06, 0.02))
    assert result.reject == (True, False, False, True)
    with pytest.raises(AgreementInputError, match="p-value 1 is 1.5"):
        agreement.holm_correction([0.1, 1.5])
    with pytest.raises(AgreementInputError, match="p-value 0 is NaN"):
        agreement.holm_correction([np.nan])
    with pytest.raises(AgreementInputError, match="non-empty"):
        agreement.holm_correction([])
