"""Two DIAMONDS ratings one point apart (seed 000 App. C.2 re-assesses only differences
above one point and is silent on these) resolve without pulling Table 13 toward the
scale's midpoint 4 or away from it: the direction does not depend on the ratings."""

import itertools

import pytest

from core import diamonds
from core.diamonds import DIAMONDS_FIELDS, DIAMONDS_MID, DIAMONDS_SCALE
from tests.review.conftest import approve, rate

STAGES = (
    "SCHOOL_AGE ADOLESCENCE EARLY_ADULT_TRANSITION ENTERING_ADULT_WORLD AGE_30_TRANSITION "
    "SETTLING_DOWN MIDLIFE_TRANSITION ENTERING_MIDLIFE"
).split()
# The release's 64 scenario ids, plus a few made-up ones a lab might enter by hand.
SCENARIO_IDS = [f"SCN_{s}_{n}" for s in STAGES for n in range(1, 9)] + [
    "SCN_X_1",
    "lab-scenario-17",
    "SCN_SCHOOL_AGE_97100",
]
ONE_POINT_PAIRS = [
    (a, b) for a, b in itertools.product(DIAMONDS_SCALE, repeat=2) if abs(a - b) == 1
]


def _pull_toward_mid(resolved: int, a: int, b: int) -> float:
    """How much closer to 4 the resolved value is than the mean of the two ratings."""
    return abs((a + b) / 2 - DIAMONDS_MID) - abs(resolved - DIAMONDS_MID)


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_no_net_pull_toward_the_midpoint_over_all_one_point_pairs(scenario_id):
    """seed 000 App. C.2, Table 13: over every one-point pair on every dimension of a
    scenario, the resolved values average exactly the mean of the two ratings, overall,
    below the midpoint and above it, and move no closer to 4 on average. The old rule
    (the rating nearer 4) pulls every such pair half a point toward 4."""
    cases = [
        (diamonds.final_rating_rule(a, b, scenario_id=scenario_id, dimension=f), a, b)
        for f in DIAMONDS_FIELDS
        for a, b in ONE_POINT_PAIRS
    ]
    assert len(cases) == 8 * 12
    assert sum(r - (a + b) / 2 for r, a, b in cases) == 0
    assert sum(_pull_toward_mid(r, a, b) for r, a, b in cases) == 0
    for side in (lambda m: m < DIAMONDS_MID, lambda m: m > DIAMONDS_MID):
        assert sum(r - (a + b) / 2 for r, a, b in cases if side((a + b) / 2)) == 0


@pytest.mark.parametrize("dimension", DIAMONDS_FIELDS)
def test_each_dimension_goes_up_for_half_of_the_releases_scenarios(dimension):
    """seed 000 App. C.2, Table 13 (one row per dimension): on the 64 scenarios, a
    dimension's one-point disagreements resolve up on exactly half and down on the other
    half, so no row of Table 13 drifts up, down or toward 4."""
    ups = [
        diamonds.final_rating_rule(3, 4, scenario_id=sid, dimension=dimension) == 4
        for sid in SCENARIO_IDS[:64]
    ]
    assert sum(ups) == 32


@pytest.mark.parametrize("scenario_id", SCENARIO_IDS)
def test_the_rule_is_symmetric_and_returns_one_of_the_two_ratings(scenario_id):
    """seed 000 App. C.2: the final value is one of the two ratings on the 1-7 scale,
    whichever reviewer gave it."""
    for f in DIAMONDS_FIELDS:
        for a, b in ONE_POINT_PAIRS + [(5, 5)]:
            r = diamonds.final_rating_rule(a, b, scenario_id=scenario_id, dimension=f)
            assert r in (a, b) and r == diamonds.final_rating_rule(
                b, a, scenario_id=scenario_id, dimension=f
            )


def test_a_pair_two_points_apart_is_not_resolved_by_the_rule():
    """seed 000 App. C.2: differences above one point go to joint re-assessment."""
    with pytest.raises(ValueError, match="re-assess"):
        diamonds.final_rating_rule(3, 5, scenario_id="SCN_X_1", dimension="duty")


def test_a_completed_review_stores_the_unbiased_resolution(scenario, scenario_reviewers):
    """seed 000 App. C.2: a review whose two ratings are one point apart on every
    dimension completes with final values that average the two ratings' mean (on
    SCN_SCHOOL_AGE_1 four dimensions resolve up, four down), not the midpoint-ward ones."""
    first, second = scenario_reviewers
    approve(scenario.scenario_id, first)
    approve(scenario.scenario_id, second)
    a = dict(
        duty=5,
        intellect=3,
        adversity=6,
        mating=1,
        positivity=2,
        negativity=6,
        deception=2,
        sociality=5,
    )
    b = {f: v + 1 if v < 4 else v - 1 for f, v in a.items()}
    rate(scenario.scenario_id, first, **a)
    rate(scenario.scenario_id, second, **b)
    final = scenario.review.final
    resolved = {f: getattr(final, f) for f in DIAMONDS_FIELDS}
    assert final.reassessed == []
    assert sum(resolved.values()) == sum(a.values()) / 2 + sum(b.values()) / 2
    nearer_mid = {f: min((a[f], b[f]), key=lambda r: abs(r - DIAMONDS_MID)) for f in a}
    assert resolved != nearer_mid
