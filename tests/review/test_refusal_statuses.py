"""Issue #24: a scenario form the page does not show the reviewer (a rating already given,
a stage that is over, a third reviewer) is refused with 403 and the reason, not the page
re-rendered with status 200 and no error."""

from django.urls import reverse

from annotation.scenario_review.models import DiamondsRating, ScenarioReview, ScreeningDecision
from core.roles import Role
from tests.factories import UserFactory

from .conftest import SCORES, approve, login, rate

SID = "SCN_SCHOOL_AGE_1"


def rating_post(client, **overrides):
    return client.post(
        reverse("review:scenario-rate", kwargs={"scenario_id": SID}),
        {**SCORES, **overrides, "note": "again"},
    )


def test_a_second_rating_by_the_same_reviewer_is_a_403(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(SID, first)
    approve(SID, second)
    rate(SID, first)
    before = list(DiamondsRating.objects.values())
    response = rating_post(login(first), adversity=1)
    assert response.status_code == 403
    assert f"You already rated {SID}; a rating cannot change." in response.content.decode()
    assert list(DiamondsRating.objects.values()) == before


def test_a_third_reviewer_rating_after_both_is_a_403(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(SID, first)
    approve(SID, second)
    rate(SID, first)
    rate(SID, second)
    third = UserFactory(username="scn-3", roles=[Role.SCENARIO_REVIEWER])
    stage = ScenarioReview.objects.get().stage
    response = rating_post(login(third))
    assert response.status_code == 403
    assert f"You cannot rate {SID} now: it is at the {stage} stage." in response.content.decode()
    assert DiamondsRating.objects.count() == 2
    draft = reverse("review:scenario-rating-draft", kwargs={"scenario_id": SID})
    assert login(third).post(draft, SCORES, HTTP_HX_REQUEST="true").status_code == 403


def test_screening_twice_or_at_the_wrong_stage_is_a_403(scenario, scenario_reviewers):
    first, second = scenario_reviewers
    approve(SID, first)
    url = reverse("review:scenario-screen", kwargs={"scenario_id": SID})
    response = login(first).post(url, {"decision": "approve"})
    assert response.status_code == 403
    assert f"You already screened {SID}" in response.content.decode()
    approve(SID, second)
    third = UserFactory(username="scn-3", roles=[Role.SCENARIO_REVIEWER])
    response = login(third).post(url, {"decision": "approve"})
    assert response.status_code == 403 and "now: it is at the rating stage" in (
        response.content.decode()
    )
    assert ScreeningDecision.objects.count() == 2


def test_reassessing_outside_the_joint_reassessment_is_a_403(scenario, scenario_reviewers):
    first, _ = scenario_reviewers
    approve(SID, first)
    for name in ("review:scenario-reassess", "review:scenario-reassess-confirm"):
        response = login(first).post(reverse(name, kwargs={"scenario_id": SID}), {})
        assert response.status_code == 403
