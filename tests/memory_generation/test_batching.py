"""Cutting quotas into batches (App. B.5): windows, targets, exact quotas, tiers, domains."""

from collections import Counter

import pytest

from annotation.memory_generation import quota
from annotation.memory_generation.batching import (
    BATCH_TARGET_HIGH,
    BATCH_TARGET_LOW,
    DOMAINS,
    BatchingError,
    apportion_tiers,
    make_batches,
    tier_share_problems,
)
from core.life_stages import LIFE_STAGE_BINS, life_stage_for_age

FULL = quota.allocate(1000, quota.default_weights())
WEIGHT_VECTORS = {
    "default": quota.default_weights(),
    "flat": [1.0] * quota.SEGMENT_COUNT,
    "steep": [float(i + 1) for i in range(quota.SEGMENT_COUNT)],
    "teens only": [3.0 if 12 <= a <= 17 else 0.2 for a in quota.SEGMENT_AGES],
}


def ages_of(batches) -> Counter:
    return Counter(s.age for b in batches for s in b.slots)


@pytest.mark.parametrize("name", list(WEIGHT_VECTORS))
@pytest.mark.parametrize("deficit", [1000, 400, 37, 0])
def test_the_batches_hold_each_age_quota_exactly(name, deficit):
    quotas = quota.allocate(deficit, WEIGHT_VECTORS[name])
    batches = make_batches(quotas, seed=3)
    counted = ages_of(batches)
    assert [counted.get(a, 0) for a in quota.SEGMENT_AGES] == quotas
    for batch in batches:
        assert batch.slots, "a bin without slots makes no batch"
        assert all(batch.first_age <= s.age <= batch.last_age for s in batch.slots)


@pytest.mark.parametrize("name", list(WEIGHT_VECTORS))
@pytest.mark.parametrize("deficit", [1000, 400, 37])
def test_every_batch_lies_in_one_bin_and_spans_two_to_five_years(name, deficit):
    quotas = quota.allocate(deficit, WEIGHT_VECTORS[name])
    for batch in make_batches(quotas):
        stage = life_stage_for_age(batch.first_age)
        assert stage.key == batch.life_stage
        assert stage.contains(batch.last_age)
        assert 2 <= batch.last_age - batch.first_age + 1 <= 5


def independent_sizes(ages: list[int]) -> list[int]:
    """Brute force: over every count k of near-equal contiguous parts, the k whose parts
    stray least from 45-50 (ties: more parts), then more parts while one spans over
    five years."""
    n = len(ages)

    def parts(k):
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        bounds = [sum(sizes[:i]) for i in range(k + 1)]
        return [ages[bounds[i] : bounds[i + 1]] for i in range(k)]

    def stray(k):
        sizes = [len(p) for p in parts(k)]
        return max(0, 45 - min(sizes)) + max(0, max(sizes) - 50)

    k = min(range(1, n + 1), key=lambda k: (stray(k), -k))
    while any(p[-1] - p[0] + 1 > 5 for p in parts(k)):
        k += 1
    return [len(p) for p in parts(k)]


@pytest.mark.parametrize("name", list(WEIGHT_VECTORS))
def test_a_full_plan_cuts_each_bin_into_batches_as_near_45_to_50_as_it_allows(name):
    quotas = quota.allocate(1000, WEIGHT_VECTORS[name])
    batches = make_batches(quotas)
    for stage in LIFE_STAGE_BINS:
        sizes = [len(b.slots) for b in batches if b.life_stage == stage.key]
        in_bin = [
            a for a in range(stage.first_age, stage.last_age + 1) for _ in range(quotas[a - 6])
        ]
        assert sum(sizes) == len(in_bin)
        if sizes:
            assert sizes == independent_sizes(in_bin), stage.key


def test_every_batch_of_the_default_plan_holds_45_to_50_memories():
    """seed 000 App. B.5: "Each batch covers a 2–5-year age window and targets 45–50
    memories." Every batch of the default full plan is in 45–50, inside one bin."""
    batches = make_batches(FULL)
    sizes = [len(b.slots) for b in batches]
    assert sum(sizes) == 1000
    assert all(BATCH_TARGET_LOW <= n <= BATCH_TARGET_HIGH for n in sizes), sizes
    assert all(2 <= b.years <= 5 for b in batches)


def test_batches_are_contiguous_in_age_and_share_at_most_a_boundary_year():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[0], quotas[1], quotas[2] = 40, 40, 10  # 90 slots at ages 6-8: two batches of 45
    batches = make_batches(quotas)
    assert [(b.first_age, b.last_age, len(b.slots)) for b in batches] == [
        (6, 7, 45),
        (7, 8, 45),
    ]


def test_a_small_top_up_makes_one_small_batch_per_bin_with_a_two_year_window():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[14 - 6] = 2
    quotas[33 - 6] = 1
    batches = make_batches(quotas)
    assert [(b.life_stage, b.first_age, b.last_age, len(b.slots)) for b in batches] == [
        ("adolescence", 14, 15, 2),
        ("age_30_transition", 32, 33, 1),  # widened inside the bin, which ends at 33
    ]


def test_slots_spread_over_more_than_five_years_make_another_batch():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[34 - 6] = 1
    quotas[40 - 6] = 1  # settling down, 34-40: seven years apart
    batches = make_batches(quotas)
    assert [(b.first_age, b.last_age) for b in batches] == [(34, 35), (39, 40)]


def test_tiers_follow_the_shares_by_largest_remainder_in_every_batch():
    assert apportion_tiers(47, None) == {"A": 12, "B": 16, "C": 12, "D": 7}
    assert apportion_tiers(4, None) == {"A": 1, "B": 1, "C": 1, "D": 1}  # D: .6 > B: .4
    for batch in make_batches(FULL, seed=11):
        counted = Counter(s.tier for s in batch.slots)
        assert counted == Counter(apportion_tiers(len(batch.slots), None))
    overall = Counter(s.tier for b in make_batches(FULL) for s in b.slots)
    assert abs(overall["A"] / 1000 - 0.25) < 0.02
    assert abs(overall["B"] / 1000 - 0.35) < 0.02
    assert abs(overall["D"] / 1000 - 0.15) < 0.02


def test_custom_shares_are_used_and_bad_shares_refused():
    shares = {"A": 0.5, "B": 0.5, "C": 0.0, "D": 0.0}
    tiers = Counter(s.tier for b in make_batches(FULL, tier_shares=shares) for s in b.slots)
    assert set(tiers) == {"A", "B"}
    assert tier_share_problems({"A": 0.5, "B": 0.6, "C": 0, "D": 0}) == [
        "The tier shares must add up to 1; they add up to 1.1."
    ]
    assert "Unknown tier E" in tier_share_problems({"A": 1, "E": 0})[0]
    with pytest.raises(BatchingError, match="need a value for B, C, D"):
        make_batches(FULL, tier_shares={"A": 1.0})


def test_domains_cycle_over_the_five():
    slots = [s for b in make_batches(FULL) for s in b.slots]
    assert [s.domain for s in slots[:10]] == list(DOMAINS) * 2
    assert Counter(s.domain for s in slots) == dict.fromkeys(DOMAINS, 200)


def test_the_same_seed_gives_the_same_batches_and_another_seed_other_tier_orders():
    assert make_batches(FULL, seed=7) == make_batches(FULL, seed=7)
    first = [s.tier for s in make_batches(FULL, seed=7)[0].slots]
    assert first != [s.tier for s in make_batches(FULL, seed=8)[0].slots]
    assert first != [s.tier for s in make_batches(FULL, seed=7, salt="CHAR_02")[0].slots]
    # the tier order is shuffled, not sorted A..D
    assert first != sorted(first)


def test_quotas_that_are_not_45_whole_numbers_are_refused():
    with pytest.raises(BatchingError, match="45 whole numbers"):
        make_batches([1] * 44)
    with pytest.raises(BatchingError):
        make_batches([-1] + [0] * 44)


def test_the_bins_cover_the_life_span():
    assert LIFE_STAGE_BINS[0].first_age == quota.SEGMENT_AGES[0]
