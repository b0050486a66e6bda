"""Cutting quotas into batches (App. B.5): windows, targets, exact quotas, tiers, domains."""

from collections import Counter

import pytest

from annotation.corpus.life_stages import LIFE_STAGE_BINS, life_stage_for_age
from annotation.memory_generation import batching, quota
from annotation.memory_generation.batching import (
    BATCH_TARGET_HIGH,
    BATCH_TARGET_LOW,
    DOMAINS,
    BatchingError,
    apportion_tiers,
    make_batches,
    tier_share_problems,
)

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
        assert batch.slots, "a window without slots makes no batch"
        assert all(batch.first_age <= s.age <= batch.last_age for s in batch.slots)


@pytest.mark.parametrize("name", list(WEIGHT_VECTORS))
def test_every_window_lies_in_one_bin_and_spans_two_to_five_years_unless_the_bin_ends(name):
    quotas = quota.allocate(1000, WEIGHT_VECTORS[name])
    for stage, first, last in batching.windows(quotas):
        assert stage.contains(first) and stage.contains(last)
        years = last - first + 1
        assert years <= 5
        if years < 2:
            assert last == stage.last_age  # only a bin's remainder is shorter
    for batch in make_batches(quotas):
        assert life_stage_for_age(batch.first_age).key == batch.life_stage
        assert life_stage_for_age(batch.last_age).key == batch.life_stage


def test_a_window_closes_at_two_years_and_45_slots():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[0], quotas[1], quotas[2] = 25, 22, 3  # ages 6, 7, 8
    (first, *_) = batching.windows(quotas)
    assert (first[1], first[2]) == (6, 7)  # 47 slots over two years
    batches = make_batches(quotas)
    assert [(b.first_age, b.last_age, len(b.slots)) for b in batches] == [(6, 7, 47), (8, 11, 3)]


def test_a_window_over_50_is_split_into_equal_batches_over_the_same_window():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[0], quotas[1] = 40, 40  # 80 slots at ages 6-7
    batches = [b for b in make_batches(quotas) if b.first_age == 6]
    assert [len(b.slots) for b in batches] == [40, 40]
    for batch in batches:
        assert (batch.first_age, batch.last_age) == (6, 7)
        assert {s.age for s in batch.slots} == {6, 7}  # each part spans the window


def test_a_full_plan_makes_batches_of_at_most_50_and_a_window_of_45_or_more_is_one_target():
    batches = make_batches(FULL)
    assert all(len(b.slots) <= BATCH_TARGET_HIGH for b in batches)
    by_window = Counter()
    for b in batches:
        by_window[(b.first_age, b.last_age)] += len(b.slots)
    for (first, last), total in by_window.items():
        stage = life_stage_for_age(first)
        if last != stage.last_age and last - first + 1 < 5:
            assert total >= BATCH_TARGET_LOW  # closed because it reached the target


def test_a_small_top_up_makes_small_batches_one_per_window():
    quotas = [0] * quota.SEGMENT_COUNT
    quotas[14 - 6] = 2
    quotas[30 - 6] = 1
    batches = make_batches(quotas)
    assert [(b.life_stage, len(b.slots)) for b in batches] == [
        ("adolescence", 2),
        ("age_30_transition", 1),
    ]


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
