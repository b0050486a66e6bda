"""Distinctness between characters (agreement/distinctness.py; pure, no database): the
L1 and Kendall distances against scipy, the near-duplicate rule on Table 4's eleven
characters, on random designs within the paper's rules and on planted near-duplicates."""

import itertools

import numpy as np
import pytest
from scipy.stats import kendalltau

from agreement import AgreementInputError
from agreement.distinctness import (
    NEAR_DUPLICATE_KENDALL_AT_MOST,
    NEAR_DUPLICATE_L1_BELOW,
    discordant_trait_pairs,
    distinctness_table,
    is_near_duplicate,
    kendall_distance,
    l1_distance,
)
from annotation.character_drafting import design
from tests.distinctness.table4 import (
    PLANTED,
    TABLE4,
    TRAITS,
    scipy_kendall_distance,
    scipy_l1,
    scores,
)


def test_the_vectors_are_the_demo_s_and_table_4_s():
    from heartbench_site.demo import ARCHETYPES

    assert {k: tuple(v[3:]) for k, v in ARCHETYPES.items()} == TABLE4
    for planned in design.table4_plan():
        vector = scores(TABLE4[planned.char_key])
        for trait, value in planned.required.items():
            assert vector[trait] == value, planned.char_key


def test_the_table_equals_scipy_on_the_eleven_table4_characters():
    rows = distinctness_table({k: scores(v) for k, v in TABLE4.items()})
    assert len(rows) == 55
    assert {(r.first, r.second) for r in rows} == set(itertools.combinations(sorted(TABLE4), 2))
    for row in rows:
        x, y = TABLE4[row.first], TABLE4[row.second]
        assert row.l1 == pytest.approx(scipy_l1(x, y), abs=1e-9), (row.first, row.second)
        assert row.kendall == pytest.approx(scipy_kendall_distance(x, y), abs=1e-9)
        assert row.discordant_pairs == pytest.approx(10 * row.kendall)
        assert row.combined == pytest.approx((row.l1 / 5 + row.kendall) / 2)
    # Closest first: by L1, then by the ordering distance.
    keys = [(r.l1, r.kendall) for r in rows]
    assert keys == sorted(keys)
    assert not [r for r in rows if r.near_duplicate]
    assert min(r.l1 for r in rows) == pytest.approx(0.60)


def test_without_ties_the_ordering_distance_is_scipy_s_one_minus_tau_over_two():
    rng = np.random.default_rng(20261207)
    for _ in range(200):
        x, y = rng.random(5), rng.random(5)
        tau = kendalltau(x, y).statistic
        assert kendall_distance(x, y) == pytest.approx((1 - tau) / 2, abs=1e-12)
        assert discordant_trait_pairs(x, y) == pytest.approx(10 * (1 - tau) / 2)
        assert l1_distance(x, y) == pytest.approx(float(np.abs(x - y).sum()), abs=1e-9)


def test_ties_count_one_half_and_only_when_tied_in_one_vector():
    neutral = [0.5] * 5
    assert kendall_distance(neutral, [0.1, 0.2, 0.3, 0.4, 0.6]) == 0.5
    assert kendall_distance(neutral, neutral) == 0.0
    assert kendall_distance([0.1, 0.2, 0.3, 0.4, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1]) == 1.0
    # O = C in the first only (1/2), and O, C both above E in the first and below in the
    # second (2): 2.5 of the ten pairs.
    x, y = [0.6, 0.6, 0.2, 0.3, 0.4], [0.1, 0.15, 0.2, 0.3, 0.4]
    assert discordant_trait_pairs(x, y) == 0.5 + 2 * 3
    assert kendall_distance(x, y) == pytest.approx(scipy_kendall_distance(x, y))


def test_random_designs_within_the_paper_s_rules_are_never_flagged():
    """Table 4's anchors with the other four scores drawn in 0.30-0.70 (two decimals, as
    drafting writes them): the floor of 0.40 in L1 holds, and no pair is flagged."""
    rng = np.random.default_rng(37)
    plan = design.table4_plan()
    closest = 5.0
    for _ in range(300):
        vectors = {}
        for planned in plan:
            drawn = {t: round(float(rng.uniform(0.30, 0.70)), 2) for t in TRAITS}
            vectors[planned.char_key] = drawn | planned.required
        rows = distinctness_table(vectors)
        assert not [r for r in rows if r.near_duplicate]
        closest = min(closest, rows[0].l1)
    assert closest >= 0.40 - 1e-9


@pytest.mark.parametrize(
    ("x", "y"),
    [
        # a low anchor whose other scores are all 0.50, against the neutral reference
        ((0.10, 0.5, 0.5, 0.5, 0.5), (0.5, 0.5, 0.5, 0.5, 0.5)),
        # two low anchors, each 0.30 on the other's trait
        ((0.10, 0.30, 0.5, 0.5, 0.5), (0.30, 0.10, 0.5, 0.5, 0.5)),
    ],
)
def test_the_closest_pairs_the_design_allows_are_not_flagged(x, y):
    assert l1_distance(x, y) == pytest.approx(0.40)
    assert not distinctness_table({"CHAR_20": x, "CHAR_21": y})[0].near_duplicate


def test_a_planted_near_duplicate_is_flagged_and_sorted_first():
    vectors = {k: scores(v) for k, v in TABLE4.items()} | {"CHAR_12": scores(PLANTED)}
    rows = distinctness_table(vectors)
    flagged = [r for r in rows if r.near_duplicate]
    assert [(r.first, r.second) for r in flagged] == [("CHAR_05", "CHAR_12")]
    assert rows[0] == flagged[0]
    assert flagged[0].l1 == pytest.approx(scipy_l1(TABLE4["CHAR_05"], PLANTED))
    assert flagged[0].kendall == pytest.approx(scipy_kendall_distance(TABLE4["CHAR_05"], PLANTED))
    involving = rows.involving({"CHAR_12"})
    assert list(involving) == [r for r in rows if "CHAR_12" in (r.first, r.second)]
    assert len(involving) == 11
    assert list(rows.near_duplicates()) == flagged
    assert rows[-1] == rows[len(rows) - 1] and rows[:3] == [rows[0], rows[1], rows[2]]


def test_a_near_copy_of_the_neutral_reference_is_flagged_but_an_opposite_lean_is_not():
    near_neutral = (0.52, 0.48, 0.51, 0.49, 0.50)
    assert kendall_distance(near_neutral, TABLE4["CHAR_11"]) == 0.5  # ties in one vector
    assert distinctness_table({"CHAR_11": TABLE4["CHAR_11"], "CHAR_12": near_neutral})[
        0
    ].near_duplicate
    leaning = (0.45, 0.47, 0.50, 0.53, 0.55)
    reverse = tuple(reversed(leaning))
    row = distinctness_table({"CHAR_12": leaning, "CHAR_13": reverse})[0]
    assert row.l1 < NEAR_DUPLICATE_L1_BELOW and row.kendall == 1.0
    assert not row.near_duplicate


def test_the_thresholds_are_strict_below_and_inclusive_at_most():
    assert not is_near_duplicate(NEAR_DUPLICATE_L1_BELOW, 0.0)
    assert is_near_duplicate(NEAR_DUPLICATE_L1_BELOW - 0.01, NEAR_DUPLICATE_KENDALL_AT_MOST)
    assert not is_near_duplicate(0.0, NEAR_DUPLICATE_KENDALL_AT_MOST + 0.05)
    # Float noise does not decide: this L1 is 0.05 + 0.30, summed as 0.3499999999999999.
    x, y = (0.0, 0.4, 0.5, 0.5, 0.5), (0.05, 0.7, 0.5, 0.5, 0.5)
    assert float(np.abs(np.subtract(x, y)).sum()) < NEAR_DUPLICATE_L1_BELOW
    row = distinctness_table({"a": x, "b": y})[0]
    assert row.l1 == 0.35 and row.kendall == 0.3
    assert not row.near_duplicate


def test_the_summary_is_the_mean_over_the_pairs():
    rows = distinctness_table(TABLE4)
    summary = rows.summary()
    pairs = list(itertools.combinations(TABLE4.values(), 2))
    assert summary.pairs == 55 and summary.near_duplicates == 0
    assert summary.mean_l1 == pytest.approx(np.mean([scipy_l1(x, y) for x, y in pairs]))
    assert summary.mean_kendall == pytest.approx(
        np.mean([scipy_kendall_distance(x, y) for x, y in pairs])
    )
    assert summary.mean_combined == pytest.approx((summary.mean_l1 / 5 + summary.mean_kendall) / 2)
    single = distinctness_table({"CHAR_01": TABLE4["CHAR_01"]})
    assert len(single) == 0 and list(single) == []
    assert single.summary().characters == 1 and single.summary().mean_l1 is None
    assert len(distinctness_table({})) == 0


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ({"O": 0.5, "C": 0.5, "E": 0.5, "A": 0.5}, "CHAR_30 has no score for N"),
        ((0.5, 0.5, 0.5), "CHAR_30 has 3 scores"),
        ((0.5, 0.5, 0.5, 0.5, 1.2), "CHAR_30: N is 1.2, outside 0-1"),
        ((0.5, 0.5, float("nan"), 0.5, 0.5), "CHAR_30: E is nan"),
        ((0.5, "x", 0.5, 0.5, 0.5), "CHAR_30 has a score that is not a number"),
    ],
)
def test_a_bad_vector_is_refused_naming_the_character(vector, message):
    with pytest.raises(AgreementInputError, match=message):
        distinctness_table({"CHAR_01": TABLE4["CHAR_01"], "CHAR_30": vector})
