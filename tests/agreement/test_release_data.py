"""agreement/ on the public HEART-Bench release (shared/heartbench-release, see its SOURCE.md)."""

import json
from collections import Counter

import numpy as np
import pytest

import agreement
from agreement.constants import CLUSTER_BOOTSTRAP_SEED, HUMAN_BASELINE_SEED

FAMILIES = ("claude-sonnet-4-6", "gpt-5_4", "gemini-3_1-pro-preview")
PAIRS = (
    "claude-sonnet-4-6+gpt-5_4",
    "claude-sonnet-4-6+gemini-3_1-pro-preview",
    "gpt-5_4+gemini-3_1-pro-preview",
)


@pytest.fixture(scope="module")
def mcq(release_dir):
    return json.loads((release_dir / "mcq.json").read_text())["questions"]


@pytest.fixture(scope="module")
def three_family_pairs(release_dir):
    """The 266 (character, scenario) pairs of the first release with the three annotation
    families' decisions and their pairwise agreement (removed from later releases)."""
    path = release_dir / "history" / "d81be18" / "ground_truth.json"
    pairs = json.loads(path.read_text())["pairs"]
    return [p for p in pairs if "pairwise_analysis" in p]


def test_mcq_release_has_the_papers_shape(mcq):
    scenarios = Counter(q["scenario_id"] for q in mcq)
    assert len(mcq) == 673  # §3.1
    assert len(scenarios) == 64  # App. J: "all 64 scenarios"
    assert sum(len(q["options"]) - 1 for q in mcq) == 2019  # App. K.1: "of the 2,019 distractors"
    assert len({q["character_id"] for q in mcq}) == 11
    assert len({q["stage"] for q in mcq}) == 8
    assert set(Counter(scenarios.values())) <= set(range(8, 12))  # several items per scenario


def test_cluster_bootstrap_on_the_real_scenarios_matches_a_reference_loop(mcq):
    # A model that always answers "A": accuracy is the share of A keys, 182/673.
    clusters = [q["scenario_id"] for q in mcq]
    always_a = np.array([q["correct_answer"] == "A" for q in mcq])
    result = agreement.cluster_bootstrap_accuracy(
        always_a, clusters, n_boot=400, seed=CLUSTER_BOOTSTRAP_SEED
    )
    assert result.estimate == pytest.approx(182 / 673)
    drawn = agreement.cluster_resample_labels(
        always_a, clusters, n_boot=400, seed=CLUSTER_BOOTSTRAP_SEED
    )
    by_scenario = {s: always_a[[c == s for c in clusters]] for s in set(clusters)}
    loop = [np.concatenate([by_scenario[s] for s in labels]).mean() for labels in drawn]
    assert (result.ci_low, result.ci_high) == pytest.approx(
        tuple(np.quantile(loop, [0.025, 0.975])), abs=1e-12
    )


def agreement_matrix(pairs):
    return np.array(
        [[p["pairwise_analysis"]["pairwise_agreements"][name] for name in PAIRS] for p in pairs]
    )


def test_three_family_file_is_internally_consistent(three_family_pairs):
    assert len(three_family_pairs) == 266
    agree = agreement_matrix(three_family_pairs)
    counts = [p["pairwise_analysis"]["agreeing_pairs_count"] for p in three_family_pairs]
    np.testing.assert_array_equal(agree.sum(axis=1), counts)
    assert all(p["pairwise_analysis"]["has_majority"] for p in three_family_pairs)
    assert all(
        set(p["pairwise_analysis"]["decisions_by_model"]) == set(FAMILIES)
        for p in three_family_pairs
    )


def test_three_family_pairwise_agreement_rates_with_scenario_cluster_intervals(
    three_family_pairs,
):
    agree = agreement_matrix(three_family_pairs)
    clusters = [p["scenario_id"] for p in three_family_pairs]
    shared = agreement.shared_cluster_bootstrap(
        agree, clusters, n_boot=2000, seed=HUMAN_BASELINE_SEED
    )
    rates = [e.estimate for e in shared.estimates]
    # Counted directly from the file: Claude–GPT 188, Claude–Gemini 82, GPT–Gemini 52 of 266.
    assert rates == pytest.approx([188 / 266, 82 / 266, 52 / 266])
    for estimate in shared.estimates:
        assert estimate.ci_low <= estimate.estimate <= estimate.ci_high
    assert shared.estimates[0].ci_low > shared.estimates[1].ci_high  # Claude–GPT agree most
    assert agreement.share_correct_by_at_least(agree, 3) == pytest.approx(12 / 266)


def test_transitive_items_coded_as_categories_give_back_the_files_agreements(
    three_family_pairs,
):
    """Where "agrees" is transitive, the three decisions fall into 1–3 distinct choices and
    can be coded as categories; pairwise_agreement on those codes must return the file's
    booleans. Items where exactly two of the three pairs agree are not transitive (A = B,
    A = C, B ≠ C: the file judges semantic agreement, not identity) and cannot be coded."""
    agree = agreement_matrix(three_family_pairs)
    transitive = agree.sum(axis=1) != 2
    assert int((~transitive).sum()) == 32
    codes = []
    for claude_gpt, claude_gemini, gpt_gemini in agree[transitive]:
        gpt = 0 if claude_gpt else 1
        gemini = 0 if claude_gemini else (gpt if gpt_gemini else 2)
        codes.append([0, gpt, gemini])
    result = agreement.pairwise_agreement(codes, n_categories=3)
    expected = agree[transitive].sum(axis=0)
    assert [result.agree[0, 1], result.agree[0, 2], result.agree[1, 2]] == list(expected)
    assert result.n_items == 234
