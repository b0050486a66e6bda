"""Reviewer blinding (DESIGN.md), proved by scanning every page, fragment and API
response the reviewer can request.

- A primary annotator never receives another annotator's review or change request
  before the case is frozen.
- A scenario reviewer never receives the other reviewer's pass-2 rating before
  submitting their own.
"""

import pytest
from django.urls import reverse

from annotation.profile_review.services import change_request_resolve, profile_freeze
from annotation.scenario_review.models import ScenarioReview

from .conftest import approve, login, rate, request_change, submit

HEADERS = [{}, {"HTTP_HX_REQUEST": "true"}, {"HTTP_ACCEPT": "application/json"}]

OTHER_CONCERN = "Zqx-other-annotator-concern-4471"
OTHER_CORRECTION = "Zqx-other-annotator-correction-1187"
OTHER_EXPLANATION = "Zqx-other-annotator-explanation-5520"
OTHER_RATING_NOTE = "Zqx-other-reviewer-rating-note-9043"


def scan(client, urls, secrets):
    found = []
    for url in urls:
        for headers in HEADERS:
            response = client.get(url, **headers)
            assert response.status_code in (200, 405), (url, response.status_code)
            body = response.content.decode()
            found += [(url, s) for s in secrets if s in body]
    return found


def profile_urls(key):
    return [
        reverse("review:profile-list"),
        reverse("review:profile-review", args=[key]),
        reverse("review:change-request-add", args=[key]),
        reverse("review-api:profile-list"),
        reverse("review-api:profile-review", args=[key]),
        reverse("home"),
    ]


@pytest.fixture
def others_reviewed(draft, annotators):
    """Annotators 2 and 3 have submitted; annotator 1 has not."""
    request_change(
        "CHAR_01", annotators[1], concern=OTHER_CONCERN, suggested_correction=OTHER_CORRECTION
    )
    submit("CHAR_01", annotators[1], "local_revision", explanation=OTHER_EXPLANATION)
    submit("CHAR_01", annotators[2], explanation=OTHER_EXPLANATION + "-b")
    return annotators


def test_an_annotator_sees_no_other_review_before_adjudication(others_reviewed):
    me = others_reviewed[0]
    secrets = [OTHER_CONCERN, OTHER_CORRECTION, OTHER_EXPLANATION, "rev-2", "rev-3"]
    assert scan(login(me), profile_urls("CHAR_01"), secrets) == []
    # The senior's pages are not reachable at all.
    client = login(me)
    assert client.get(reverse("review:profile-adjudicate", args=["CHAR_01"])).status_code == 403
    # Still hidden once the annotator has submitted and the case waits for the senior.
    submit("CHAR_01", me)
    assert scan(login(me), profile_urls("CHAR_01"), secrets) == []


def test_after_freezing_the_reviews_are_open_to_the_annotators(others_reviewed, senior):
    """The control: the same scan finds the strings once the case is adjudicated."""
    me = others_reviewed[0]
    submit("CHAR_01", me)
    senior_client = login(senior)
    page = senior_client.get(reverse("review:profile-adjudicate", args=["CHAR_01"])).content
    assert OTHER_CONCERN.encode() in page and OTHER_EXPLANATION.encode() in page
    from annotation.profile_review.models import ChangeRequest

    change_request_resolve(
        request_id=ChangeRequest.objects.get().pk,
        arbitrator=senior,
        status="rejected",
        reason="Kept as written.",
    )
    profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)
    found = {
        s for _, s in scan(login(me), profile_urls("CHAR_01"), [OTHER_CONCERN, OTHER_EXPLANATION])
    }
    assert found == {OTHER_CONCERN, OTHER_EXPLANATION}


def scenario_urls(sid):
    return [
        reverse("review:scenario-list"),
        reverse("review:scenario-review", args=[sid]),
        reverse("review:scenario-coverage"),
        reverse("review:coverage-diamonds-csv"),
        reverse("review:coverage-agreement-csv"),
        reverse("review-api:scenario-list"),
        reverse("review-api:scenario-review", args=[sid]),
        reverse("review-api:scenario-coverage"),
        reverse("home"),
    ]


@pytest.fixture
def other_rated(scenario, scenario_reviewers):
    me, other = scenario_reviewers
    approve(scenario.scenario_id, me)
    approve(scenario.scenario_id, other)
    from annotation.scenario_review.services import scenario_rate

    scenario_rate(
        scenario_id=scenario.scenario_id,
        reviewer=other,
        scores=dict(
            duty=7,
            intellect=7,
            adversity=7,
            mating=7,
            positivity=7,
            negativity=7,
            deception=7,
            sociality=7,
        ),
        note=OTHER_RATING_NOTE,
    )
    return me, other


def test_a_scenario_reviewer_cannot_see_the_other_rating_before_submitting(other_rated, scenario):
    me, other = other_rated
    client = login(me)
    sid = scenario.scenario_id
    assert scan(client, scenario_urls(sid), [OTHER_RATING_NOTE, 'data-rater="scn-2"']) == []
    detail = client.get(reverse("review-api:scenario-review", args=[sid])).json()
    assert detail["ratings"] == [] and detail["review_stage"] == "rating"
    page = client.get(reverse("review:scenario-review", args=[sid])).content.decode()
    assert 'data-testid="ratings-table"' not in page and 'id="rating-form"' in page
    # Not even whether the other has rated: the queue says only what I have done.
    queue = client.get(reverse("review-api:scenario-list")).json()
    assert queue["results"][0]["your_status"] == "Pass 2: rate it"
    assert client.get(reverse("review:scenario-coverage")).content.decode().count("scn-2") == 0


def test_after_submitting_both_ratings_are_visible(other_rated, scenario):
    """The control: submitting opens the comparison, in the page and in the API."""
    me, other = other_rated
    sid = scenario.scenario_id
    rate(sid, me)  # 5 vs 7 on duty: re-assessment
    client = login(me)
    found = {
        s for _, s in scan(client, scenario_urls(sid), [OTHER_RATING_NOTE, 'data-rater="scn-2"'])
    }
    assert found == {OTHER_RATING_NOTE, 'data-rater="scn-2"'}
    detail = client.get(reverse("review-api:scenario-review", args=[sid])).json()
    assert [r["reviewer"] for r in detail["ratings"]] == ["scn-2", "scn-1"]
    assert "duty" in detail["reassess"]
    assert ScenarioReview.objects.get().stage == "reassessment"


def test_the_rating_api_applies_the_same_rules(other_rated, scenario):
    me, _ = other_rated
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(me)
    url = reverse("review-api:scenario-rate", args=[scenario.scenario_id])
    bad = client.post(url, {"scores": {"duty": 9}}, format="json")
    assert bad.status_code == 400 and OTHER_RATING_NOTE not in bad.content.decode()
    scores = dict(
        duty=6,
        intellect=7,
        adversity=7,
        mating=7,
        positivity=7,
        negativity=7,
        deception=7,
        sociality=7,
    )
    created = client.post(url, {"scores": scores}, format="json")
    assert created.status_code == 201
    assert OTHER_RATING_NOTE in created.content.decode()
    assert created.json()["final"]["duty"] == 6
