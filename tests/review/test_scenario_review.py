"""Scenario review (seed 000 §2.3, App. C.2): pass-1 joint screening with consensus
revision, pass-2 independent ratings, joint re-assessment of >1-point disagreements."""

import pytest

from annotation.corpus.models import Scenario
from annotation.profile_review.models import ReviewError
from annotation.scenario_review.models import (
    DiamondsRating,
    FinalDiamondsRating,
    ScenarioReview,
    ScenarioVersion,
)
from annotation.scenario_review.services import (
    final_rating_rule,
    scenario_create_manual,
    scenario_revise,
    scenario_screen,
)

from .conftest import SCORES, approve, rate


def content_of(version, **changes):
    return dict(version.content(), **changes)


def test_an_imported_scenario_gets_version_1_on_first_screening(scenario, scenario_reviewers):
    approve(scenario.scenario_id, scenario_reviewers[0])
    review = ScenarioReview.objects.get()
    assert review.stage == "screening"
    assert review.version.number == 1 and review.version.origin == "import"
    assert review.version.context_text == scenario.context_text
    with pytest.raises(ReviewError, match="already screened"):
        approve(scenario.scenario_id, scenario_reviewers[0])
    approve(scenario.scenario_id, scenario_reviewers[1])
    review.refresh_from_db()
    assert review.stage == "rating" and review.screened_at


def test_approval_needs_the_three_checks_and_a_flag_needs_a_note(scenario, scenario_reviewers):
    with pytest.raises(ReviewError, match="all three checks"):
        scenario_screen(
            scenario_id=scenario.scenario_id,
            reviewer=scenario_reviewers[0],
            decision="approve",
            logically_consistent=True,
            psychologically_plausible=True,
        )
    with pytest.raises(ReviewError, match="what needs revising"):
        scenario_screen(
            scenario_id=scenario.scenario_id, reviewer=scenario_reviewers[0], decision="flag"
        )
    assert not ScenarioReview.objects.filter(screenings__isnull=False).exists()


def test_a_flagged_scenario_is_revised_and_both_approve_the_revision(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(scenario.scenario_id, first)
    scenario_screen(
        scenario_id=scenario.scenario_id,
        reviewer=second,
        decision="flag",
        note="The trigger gives no reason to decide now.",
    )
    review = ScenarioReview.objects.get()
    assert review.stage == "revision"
    with pytest.raises(ReviewError, match="cannot be rated now"):
        rate(scenario.scenario_id, first)
    v1 = review.version
    with pytest.raises(ReviewError, match="changes nothing"):
        scenario_revise(
            scenario_id=scenario.scenario_id, reviewer=second, content=content_of(v1), note="x"
        )
    v2 = scenario_revise(
        scenario_id=scenario.scenario_id,
        reviewer=second,
        content=content_of(v1, action_required="Decide before the bus leaves in five minutes."),
        note="Added urgency.",
    )
    assert (v2.number, v2.origin) == (2, "revision")
    review.refresh_from_db()
    assert review.stage == "screening" and review.version == v2
    # The proposer's own approval is not implied: both approve v2.
    approve(scenario.scenario_id, second)
    review.refresh_from_db()
    assert review.stage == "screening"
    approve(scenario.scenario_id, first)
    review.refresh_from_db()
    assert review.stage == "rating"
    scenario.refresh_from_db()
    assert scenario.action_required == "Decide before the bus leaves in five minutes."
    v1.refresh_from_db()
    assert v1.action_required == "Decide whether to go."  # the history is kept
    with pytest.raises(ReviewError, match="cannot change"):
        v1.save()


def test_ratings_within_one_point_complete_the_review(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(scenario.scenario_id, first)
    approve(scenario.scenario_id, second)
    rate(scenario.scenario_id, first)
    with pytest.raises(ReviewError, match="already rated"):
        rate(scenario.scenario_id, first)
    rate(scenario.scenario_id, second, duty=4, sociality=6)
    review = ScenarioReview.objects.get()
    assert review.stage == "complete"
    final = review.final
    assert final.reassessed == []
    # One-point differences: on this scenario duty resolves down and sociality up
    # (core.diamonds.one_point_goes_up; tests/review/test_one_point_resolution.py).
    assert final.duty == 4  # 5 vs 4
    assert final.sociality == 6  # 5 vs 6
    assert final.adversity == 6


@pytest.mark.parametrize(
    ("a", "b", "dimension", "final"),
    [(3, 3, "duty", 3), (5, 4, "duty", 4), (4, 3, "sociality", 4), (1, 2, "duty", 1)],
)
def test_the_one_point_rule(a, b, dimension, final):
    kw = {"scenario_id": "SCN_SCHOOL_AGE_1", "dimension": dimension}
    assert final_rating_rule(a, b, **kw) == final == final_rating_rule(b, a, **kw)


def test_a_disagreement_above_one_point_opens_a_joint_reassessment(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(scenario.scenario_id, first)
    approve(scenario.scenario_id, second)
    rate(scenario.scenario_id, first)
    rate(scenario.scenario_id, second, adversity=3, deception=4, duty=6)  # 6/3, 2/4, 5/6
    review = ScenarioReview.objects.get()
    assert review.stage == "reassessment" and not FinalDiamondsRating.objects.exists()
    # Proposing and confirming the values: tests/review/test_reassessment.py.


def test_a_manual_scenario_gets_a_programmatic_id_and_enters_pass_1(scenario, scenario_reviewers):
    content = content_of(
        ScenarioVersion(**{f: getattr(scenario, f) for f in ScenarioVersion().content()}),
        stage="adolescence",
        age=15,
        age_range="ages 12-17",
    )
    created = scenario_create_manual(user=scenario_reviewers[0], content=content)
    assert created.scenario_id == "SCN_ADOLESCENCE_1"
    assert created.review.stage == "screening" and created.review.version.origin == "manual"
    with pytest.raises(ReviewError, match="outside Adolescence"):
        scenario_create_manual(user=scenario_reviewers[0], content=dict(content, age=30))
    assert Scenario.objects.count() == 2


def test_scores_are_checked(scenario, scenario_reviewers):
    approve(scenario.scenario_id, scenario_reviewers[0])
    approve(scenario.scenario_id, scenario_reviewers[1])
    with pytest.raises(ReviewError, match="Duty must be between 1 and 7"):
        rate(scenario.scenario_id, scenario_reviewers[0], duty=0)
    bad = dict(SCORES)
    bad.pop("mating")
    from annotation.scenario_review.services import scenario_rate

    with pytest.raises(ReviewError, match="Rate Mating"):
        scenario_rate(scenario_id=scenario.scenario_id, reviewer=scenario_reviewers[0], scores=bad)
    assert not DiamondsRating.objects.exists()
