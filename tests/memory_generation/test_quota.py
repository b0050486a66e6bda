"""The B.4 allocation (``annotation.memory_generation.quota``) against an independent
computation: whole-number arithmetic on the weights as written (decimal strings scaled
to integers), so every share's floor and remainder is exact, and a threshold search in
place of a sort. Pure: no database."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.memory_generation import quota
from core.life_stages import life_stage_for_age

SEGMENTS = quota.SEGMENT_COUNT


def integer_weights(weights) -> list[int]:
    """The weights as integers with the same ratios (each decimal string times 10^p)."""
    decimals = [Decimal(str(w)) for w in weights]
    places = max(-d.as_tuple().exponent for d in decimals) if decimals else 0
    places = max(places, 0)
    return [int(d.scaleb(places)) for d in decimals]


def floors_and_remainders(deficit, weights):
    """Exact share of each segment as ``floor + remainder/total``, in integers."""
    scaled = integer_weights(weights)
    total = sum(scaled)
    return [deficit * w // total for w in scaled], [deficit * w % total for w in scaled]


def independent_allocation(deficit, weights) -> list[int]:
    """Largest remainder by a threshold: every segment whose remainder beats the
    threshold gets one more, then the youngest of those tied at it, until d is met."""
    floors, remainders = floors_and_remainders(deficit, weights)
    missing = deficit - sum(floors)
    quotas = list(floors)
    for threshold in sorted(set(remainders), reverse=True):
        if missing == 0:
            break
        for t in range(SEGMENTS):  # youngest first among equal remainders
            if missing and remainders[t] == threshold:
                quotas[t] += 1
                missing -= 1
    return quotas


def assert_largest_remainder(deficit, weights, quotas):
    floors, remainders = floors_and_remainders(deficit, weights)
    assert sum(quotas) == deficit
    assert all(q - f in (0, 1) for q, f in zip(quotas, floors, strict=True))
    raised = [t for t in range(SEGMENTS) if quotas[t] > floors[t]]
    kept = [t for t in range(SEGMENTS) if quotas[t] == floors[t]]
    for t in raised:
        for u in kept:
            assert remainders[t] >= remainders[u], (t, u)
            if remainders[t] == remainders[u]:
                assert t < u, "ties go to the younger segment"


def uniform():
    return [1] * SEGMENTS


def ramp():
    return [round(0.1 * (t + 1), 1) for t in range(SEGMENTS)]


def one_bin_only():
    return [1.0 if 29 <= age <= 33 else 0.0 for age in quota.SEGMENT_AGES]


def thirds():
    return [1 / 3, 2 / 3, 0.25] * (SEGMENTS // 3)


WEIGHT_VECTORS = {
    "default": quota.default_weights(),
    "uniform": uniform(),
    "ramp": ramp(),
    "one bin": one_bin_only(),
    "thirds": thirds(),
}


def existing_counts(kind: str) -> list[int]:
    if kind == "none":
        return [0] * SEGMENTS
    if kind == "even":
        return [10] * SEGMENTS  # k = 450
    if kind == "lopsided":
        return [40 if age < 20 else 0 for age in quota.SEGMENT_AGES]  # k = 560
    if kind == "almost full":
        return [22] * 44 + [31]  # k = 999
    raise ValueError(kind)


@pytest.mark.parametrize("name", sorted(WEIGHT_VECTORS))
@pytest.mark.parametrize("existing", ["none", "even", "lopsided", "almost full"])
def test_allocation_matches_an_independent_computation(name, existing):
    weights = WEIGHT_VECTORS[name]
    counts = existing_counts(existing)
    deficit = quota.TARGET_PER_CHARACTER - sum(counts)
    quotas = quota.allocate(deficit, weights)
    assert quotas == independent_allocation(deficit, weights)
    assert_largest_remainder(deficit, weights, quotas)
    assert sum(quotas) + sum(counts) == quota.TARGET_PER_CHARACTER


def test_the_default_weighs_the_three_named_bins_highest_and_sums_to_1000():
    """seed 000 App. B.4: w is higher in Adolescence, the Early adult transition and the
    Age-30 transition than in any other bin."""
    quotas = quota.allocate(1000, quota.default_weights())
    assert sum(quotas) == 1000
    # The default weights add up to 1,000, so a full plan is the weights themselves.
    assert quotas == [int(w) for w in quota.default_weights()]
    per_age = dict(zip(quota.SEGMENT_AGES, quotas, strict=True))
    raised = {"adolescence", "early_adult_transition", "age_30_transition"}
    lowest_raised = min(per_age[a] for a in per_age if life_stage_for_age(a).key in raised)
    highest_other = max(per_age[a] for a in per_age if life_stage_for_age(a).key not in raised)
    assert lowest_raised == 30 and highest_other == 24
    # A bin's share is spread evenly over its years, the odd ones to the youngest.
    assert [per_age[a] for a in range(6, 12)] == [24, 24, 23, 23, 23, 23]
    per_bin = {b.key: b.quota for b in quota.by_bin(quotas)}
    assert per_bin == {
        "school_age": 140,
        "adolescence": 188,
        "early_adult_transition": 150,
        "entering_adult_world": 100,
        "age_30_transition": 150,
        "settling_down": 135,
        "midlife_transition": 90,
        "entering_midlife": 47,
    }


def test_the_default_plan_reproduces_table_7s_two_aggregates():
    """seed 000 App. B.4, Table 7: pooled over the corpus, School age + Adolescence hold
    32.8 % of the memories and Early adult transition + Entering the adult world 25.2 %.
    The default plan of 1,000 memories lands within half a point of both."""
    per_bin = {b.key: b.quota for b in quota.by_bin(quota.allocate(1000, quota.default_weights()))}
    early = 100 * (per_bin["school_age"] + per_bin["adolescence"]) / 1000
    career = 100 * (per_bin["early_adult_transition"] + per_bin["entering_adult_world"]) / 1000
    assert abs(early - 32.8) <= 0.5, early
    assert abs(career - 25.2) <= 0.5, career


def test_uniform_weights_give_the_ten_left_over_to_the_youngest_years():
    quotas = quota.allocate(1000, uniform())
    assert quotas == [23] * 10 + [22] * 35


def test_a_zero_weight_gets_nothing_and_a_zero_deficit_is_all_zeros():
    quotas = quota.allocate(1000, one_bin_only())
    assert quotas[: 29 - 6] == [0] * 23 and sum(quotas[23:28]) == 1000
    assert quota.allocate(0, quota.default_weights()) == [0] * SEGMENTS


@pytest.mark.parametrize(
    ("weights", "fragment"),
    [
        ([1.0] * 44, "45 entries"),
        ([1.0] * 44 + [-1.0], "age 50 must be a finite number ≥ 0"),
        ([1.0] * 10 + ["x"] + [1.0] * 34, "age 16 is not a number"),
        ([0] * SEGMENTS, "At least one age"),
        ([float("inf")] + [1.0] * 44, "age 6"),
    ],
)
def test_bad_weights_are_refused_naming_the_age(weights, fragment):
    with pytest.raises(quota.QuotaError, match=fragment):
        quota.allocate(10, weights)


def test_top_up_spreads_target_minus_kept_by_the_weights():
    """seed 000 App. B.4: d = 1,000 − k, spread by w; nothing when nothing is missing."""
    weights = quota.default_weights()
    assert quota.top_up(1000, 970, weights) == independent_allocation(30, weights)
    assert quota.top_up(1000, 1000, weights) == [0] * SEGMENTS
    assert quota.top_up(1000, 1005, weights) == [0] * SEGMENTS


def test_counts_by_age_ignores_ages_outside_the_span():
    counts = quota.counts_by_age([5, 6, 6, 50, 51, 30])
    assert counts[0] == 2 and counts[-1] == 1 and counts[30 - 6] == 1 and sum(counts) == 4


weight_value = st.one_of(
    st.integers(min_value=0, max_value=20),
    st.decimals(min_value=0, max_value=50, places=2).map(float),
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=150, deadline=None)
@given(
    weights=st.lists(weight_value, min_size=SEGMENTS, max_size=SEGMENTS).filter(any),
    deficit=st.integers(min_value=0, max_value=5000),
)
def test_random_vectors_satisfy_largest_remainder_and_match(weights, deficit):
    quotas = quota.allocate(deficit, weights)
    assert_largest_remainder(deficit, weights, quotas)
    assert quotas == independent_allocation(deficit, weights)
