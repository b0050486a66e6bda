"""Human-baseline accuracy summaries (App. J) against reference loops, hand counts and the paper."""

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agreement
from agreement import AgreementInputError
from agreement.constants import FULL_BENCHMARK_SOURCE_COUNTS, HUMAN_BASELINE_SEED

from . import app_j

SETTINGS = settings(max_examples=40, deadline=None)
A, B, C, D = range(4)


def answers_for(rng, n_items, n_annotators, skill=0.8):
    key = rng.integers(0, 4, n_items)
    wrong = (key[:, None] + rng.integers(1, 4, (n_items, n_annotators))) % 4
    answers = np.where(rng.random((n_items, n_annotators)) < skill, key[:, None], wrong)
    return answers, key


# --- scoring ----------------------------------------------------------------------------------


def test_correctness_scores_missing_answers_as_incorrect_or_refuses_them():
    answers = [[A, B], [None, C]]
    np.testing.assert_array_equal(
        agreement.correctness(answers, [A, C], n_options=4), [[True, False], [False, True]]
    )
    with pytest.raises(AgreementInputError, match="missing value.*item 1, annotator 0"):
        agreement.correctness(answers, [A, C], n_options=4, missing="error")


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ([A], "key has 1 entries; answers have 2 items"),
        ([A, 7], "key at item 1"),
        ([A, None], "missing"),
    ],
)
def test_correctness_rejects_bad_keys(key, message):
    with pytest.raises(AgreementInputError, match=message):
        agreement.correctness([[A, B], [C, D]], key, n_options=4)


def test_per_annotator_accuracy_and_share_correct_by_at_least():
    correct = np.array([[1, 1, 1], [1, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
    assert agreement.per_annotator_accuracy(correct) == (0.5, 0.25, 0.75)
    assert agreement.share_correct_by_at_least(correct, 1) == 0.75
    assert agreement.share_correct_by_at_least(correct, 2) == 0.5
    assert agreement.share_correct_by_at_least(correct, 3) == 0.25
    with pytest.raises(AgreementInputError, match="only 3 annotators"):
        agreement.share_correct_by_at_least(correct, 4)
    with pytest.raises(AgreementInputError, match="min_correct must be an integer >= 1"):
        agreement.share_correct_by_at_least(correct, 0)


# --- the plurality rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "correct", "tied"),
    [
        ([A, A, A, A], True, False),
        ([A, A, A, B], True, False),
        ([A, A, B, C], True, False),  # two for the key, the other two split: the key wins
        ([A, A, B, B], False, True),  # 2–2 tie: incorrect
        ([A, B, C, D], False, True),  # 1–1–1–1 tie: incorrect
        ([B, B, B, A], False, False),
        ([B, B, C, D], False, False),  # key gets no vote
        ([A, None, B, None], False, True),  # missing answers cast no vote
        ([A, None, None, None], True, False),
    ],
)
def test_plurality_needs_strictly_more_votes_for_the_key_and_ties_are_incorrect(
    votes, correct, tied
):
    result = agreement.plurality_vote_accuracy([votes], [A], n_options=4)
    assert result.accuracy == float(correct)
    assert result.n_tied == int(tied)
    assert result.n_correct + result.n_tied + result.n_outvoted == 1


@SETTINGS
@given(st.integers(1, 60), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_plurality_matches_a_counter_loop(n_items, n_annotators, seed):
    rng = np.random.default_rng(seed)
    answers, key = answers_for(rng, n_items, n_annotators, skill=0.4)
    result = agreement.plurality_vote_accuracy(answers, key, n_options=4)
    expected = []
    for row, k in zip(answers.tolist(), key.tolist(), strict=True):
        votes = Counter(row)
        best_other = max((v for option, v in votes.items() if option != k), default=0)
        expected.append(votes[k] > best_other)
    np.testing.assert_array_equal(result.item_correct, expected)


# --- joint item × annotator bootstrap ----------------------------------------------------------


def test_mean_accuracy_ci_equals_a_reference_loop_on_the_same_joint_resamples():
    answers, key = answers_for(np.random.default_rng(1), 150, 4)
    correct = agreement.correctness(answers, key, n_options=4)
    result = agreement.mean_annotator_accuracy(correct, n_boot=500, seed=HUMAN_BASELINE_SEED)
    items, annotators = agreement.joint_resample_indices(correct, 4, 500, HUMAN_BASELINE_SEED)
    loop = [correct[np.ix_(i, a)].mean() for i, a in zip(items, annotators, strict=True)]
    assert (result.ci_low, result.ci_high) == pytest.approx(
        tuple(np.quantile(loop, [0.025, 0.975])), abs=1e-12
    )
    assert result.estimate == correct.mean()
    assert result == agreement.mean_annotator_accuracy(
        correct, n_boot=500, seed=HUMAN_BASELINE_SEED
    )


def test_joint_resampling_is_wider_than_item_resampling_when_annotators_differ():
    rng = np.random.default_rng(2)
    skills = np.array([0.6, 0.7, 0.85, 0.95])
    correct = rng.random((150, 4)) < skills
    joint = agreement.mean_annotator_accuracy(correct, n_boot=2000, seed=3)
    items_only = agreement.cluster_bootstrap_accuracy(
        correct.mean(axis=1), np.arange(150), n_boot=2000, seed=3
    )
    assert joint.ci_high - joint.ci_low > 1.5 * (items_only.ci_high - items_only.ci_low)


@SETTINGS
@given(st.integers(5, 80), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_mean_accuracy_ci_contains_the_estimate(n_items, n_annotators, seed):
    answers, key = answers_for(np.random.default_rng(seed), n_items, n_annotators)
    correct = agreement.correctness(answers, key, n_options=4)
    result = agreement.mean_annotator_accuracy(correct, n_boot=300, seed=seed)
    assert result.ci_low <= result.estimate <= result.ci_high


@pytest.mark.parametrize("value", [True, False])
def test_bootstrap_of_a_constant_is_degenerate(value):
    correct = np.full((40, 4), value)
    result = agreement.mean_annotator_accuracy(correct, n_boot=200, seed=1)
    assert result.ci_low == result.ci_high == result.estimate == float(value)


def test_human_model_difference_equals_a_reference_loop_for_one_and_many_models():
    rng = np.random.default_rng(4)
    answers, key = answers_for(rng, 150, 4)
    human = agreement.correctness(answers, key, n_options=4)
    models = rng.random((150, 16)) < 0.45
    for model in (models[:, 0], models):
        result = agreement.human_model_difference(human, model, n_boot=400, seed=12)
        model_count = model if model.ndim == 1 else model.sum(axis=1)
        n_models = 1 if model.ndim == 1 else model.shape[1]
        assert result.estimate == pytest.approx(human.mean() - model_count.mean() / n_models)
        key_rows = np.column_stack([human, model_count])
        items, annotators = agreement.joint_resample_indices(key_rows, 4, 400, 12)
        loop = [
            human[np.ix_(i, a)].mean() - model_count[i].mean() / n_models
            for i, a in zip(items, annotators, strict=True)
        ]
        assert (result.ci_low, result.ci_high) == pytest.approx(
            tuple(np.quantile(loop, [0.025, 0.975])), abs=1e-12
        )


def test_human_model_difference_rejects_a_model_scored_on_other_items():
    with pytest.raises(AgreementInputError, match="model_correct has 3 items"):
        agreement.human_model_difference(np.ones((4, 2), bool), np.ones(3, bool), n_boot=10, seed=1)
    with pytest.raises(AgreementInputError, match="explicit seed"):
        agreement.human_model_difference(
            np.ones((4, 2), bool), np.ones(4, bool), n_boot=10, seed=None
        )


# --- reweighting and the source permutation test -----------------------------------------------


def test_reweighting_the_papers_per_source_accuracy_gives_its_82_percent():
    # App. J: 83.0%, 78.0%, 81.5% on 50 items each, reweighted to 497/126/50 → 82.0%.
    sources = np.repeat(["gemini", "claude", "gpt"], 50)
    correct = np.zeros((150, 4), dtype=bool)
    for source, n_correct in (("gemini", 166), ("claude", 156), ("gpt", 163)):
        cells = correct[sources == source]
        cells.ravel()[:n_correct] = True
        correct[sources == source] = cells
    result = agreement.reweighted_accuracy(
        correct, sources, target_counts=FULL_BENCHMARK_SOURCE_COUNTS
    )
    assert result.per_source == pytest.approx({"gemini": 0.83, "claude": 0.78, "gpt": 0.815})
    by_hand = (497 * 0.83 + 126 * 0.78 + 50 * 0.815) / 673
    assert result.estimate == pytest.approx(by_hand)
    assert round(100 * result.estimate, 1) == 82.0
    assert round(100 * correct.mean(), 1) == 80.8


def test_reweighting_refuses_sources_without_weights_and_weights_without_items():
    correct = np.ones(4, bool)
    with pytest.raises(AgreementInputError, match=r"sources \['mistral'\] have items"):
        agreement.reweighted_accuracy(
            correct, ["gpt", "gpt", "mistral", "gpt"], target_counts={"gpt": 1}
        )
    with pytest.raises(AgreementInputError, match=r"give weight to \['claude'\]"):
        agreement.reweighted_accuracy(correct, ["gpt"] * 4, target_counts={"gpt": 1, "claude": 2})


def exact_range_p_value(item_accuracy, sources):
    """Exact permutation p-value of the range statistic by enumerating label assignments."""
    labels = sorted(set(sources))
    sizes = [list(sources).count(label) for label in labels]

    def spread(assignment):
        means = [
            np.mean([a for a, s in zip(item_accuracy, assignment, strict=True) if s == lab])
            for lab in labels
        ]
        return max(means) - min(means)

    observed = spread(sources)
    n = len(sources)
    total = exceed = 0
    for first in itertools.combinations(range(n), sizes[0]):
        rest = [i for i in range(n) if i not in first]
        for second in itertools.combinations(rest, sizes[1]):
            assignment = [labels[2]] * n
            for i in first:
                assignment[i] = labels[0]
            for i in second:
                assignment[i] = labels[1]
            total += 1
            exceed += spread(assignment) >= observed - 1e-12
    return exceed / total


def test_source_permutation_p_value_agrees_with_exact_enumeration():
    rng = np.random.default_rng(6)
    correct = rng.random((9, 4)) < np.linspace(0.3, 0.9, 9)[:, None]
    sources = ["gemini"] * 3 + ["claude"] * 3 + ["gpt"] * 3
    exact = exact_range_p_value(correct.mean(axis=1), sources)
    result = agreement.source_permutation_test(correct, sources, n_permutations=20000, seed=7)
    # Monte Carlo error of a proportion from 20,000 draws is at most 0.0035.
    assert result.p_value == pytest.approx(exact, abs=0.015)
    assert result.observed_range == pytest.approx(
        max(result.per_source.values()) - min(result.per_source.values())
    )


def test_source_permutation_p_value_is_plus_one_and_reproducible():
    correct = np.array([[1, 1]] * 10 + [[0, 0]] * 10, dtype=bool)
    sources = ["a"] * 10 + ["b"] * 10  # perfectly separated: the smallest possible p
    result = agreement.source_permutation_test(correct, sources, n_permutations=999, seed=1)
    assert result.p_value == pytest.approx(1 / 1000)
    assert result == agreement.source_permutation_test(correct, sources, n_permutations=999, seed=1)
    with pytest.raises(AgreementInputError, match="at least two sources"):
        agreement.source_permutation_test(correct, ["a"] * 20, n_permutations=9, seed=1)


# --- App. J, end to end --------------------------------------------------------------------------


def test_summary_equals_its_parts_called_with_the_same_seed():
    answers, key, sources = app_j.build()
    rng = np.random.default_rng(0)
    models = {"one": rng.random(150) < 0.64, "all": rng.random((150, 16)) < 0.43}
    summary = agreement.human_baseline_summary(
        answers,
        key,
        n_options=4,
        seed=HUMAN_BASELINE_SEED,
        n_boot=500,
        sources=sources,
        target_counts=FULL_BENCHMARK_SOURCE_COUNTS,
        n_permutations=500,
        model_correct=models,
    )
    correct = agreement.correctness(answers, key, n_options=4)
    assert summary.mean_accuracy == agreement.mean_annotator_accuracy(
        correct, n_boot=500, seed=HUMAN_BASELINE_SEED
    )
    assert summary.fleiss_kappa == agreement.fleiss_kappa(
        answers, n_categories=4, n_boot=500, seed=HUMAN_BASELINE_SEED
    )
    assert summary.source_test == agreement.source_permutation_test(
        correct, sources, n_permutations=500, seed=HUMAN_BASELINE_SEED
    )
    for name, model in models.items():
        assert summary.model_differences[name] == agreement.human_model_difference(
            correct, model, n_boot=500, seed=HUMAN_BASELINE_SEED
        )
    with pytest.raises(AgreementInputError, match="integer seed"):
        agreement.human_baseline_summary(
            answers, key, n_options=4, seed=np.random.default_rng(1), n_boot=10
        )


def test_app_j_reconstruction_reproduces_the_papers_counts_exactly():
    answers, key, sources = app_j.build()
    reported = app_j.REPORTED
    correct = agreement.correctness(answers, key, n_options=4)
    per_annotator = agreement.per_annotator_accuracy(correct)
    assert round(correct.mean(), 3) == reported["mean_accuracy"]
    assert (min(per_annotator), max(per_annotator)) == reported["annotator_range"]
    assert agreement.share_correct_by_at_least(correct, 3) == reported["share_at_least_three"]
    plurality = agreement.plurality_vote_accuracy(answers, key, n_options=4)
    assert round(plurality.accuracy, 3) == reported["plurality"]
    assert plurality.n_correct - round(150 * reported["share_at_least_three"]) == 14
    assert plurality.n_tied == reported["ties"]
    reweighted = agreement.reweighted_accuracy(
        correct, sources, target_counts=FULL_BENCHMARK_SOURCE_COUNTS
    )
    assert reweighted.per_source == pytest.approx(reported["per_source"])
    assert round(reweighted.estimate, 3) == reported["reweighted"]


def test_app_j_reconstruction_gives_the_papers_intervals_and_p_value_closely():
    """The statistics App. J's counts do not pin down, with its seed and 10,000 resamples."""
    answers, key, sources = app_j.build()
    reported = app_j.REPORTED
    summary = agreement.human_baseline_summary(
        answers,
        key,
        n_options=4,
        seed=HUMAN_BASELINE_SEED,
        n_boot=10_000,
        sources=sources,
        n_permutations=10_000,
    )
    low, high = reported["mean_accuracy_ci"]
    assert summary.mean_accuracy.ci_low == pytest.approx(low, abs=0.01)  # 75.3 vs 74.8
    assert summary.mean_accuracy.ci_high == pytest.approx(high, abs=0.005)  # 86.3 vs 86.3
    assert summary.fleiss_kappa.estimate == pytest.approx(reported["fleiss_kappa"], abs=0.015)
    kappa_low, kappa_high = reported["fleiss_kappa_ci"]
    assert summary.fleiss_kappa.ci_low == pytest.approx(kappa_low, abs=0.015)
    assert summary.fleiss_kappa.ci_high == pytest.approx(kappa_high, abs=0.015)
    assert summary.source_test.observed_range == pytest.approx(reported["source_range"])
    assert summary.source_test.p_value == pytest.approx(reported["source_p"], abs=0.03)
