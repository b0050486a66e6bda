"""Profile review and scenario review over the REST API with tokens only (issue #23):
every action of the pages, with the pages' services, forms, roles and messages; ETags
refuse a stale write (412); a submit repeated as it was answers 200, a different one on
a recorded decision 409."""

import pytest
from django.urls import reverse

from annotation.corpus.models import ProfileVersion
from annotation.profile_review.models import (
    ChangeRequest,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
)
from annotation.scenario_review.models import (
    DiamondsRating,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
)
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory
from tests.review.conftest import ALL_MEET, SCORES, approve, rate, request_change, submit

pytestmark = pytest.mark.django_db

ANNOTATOR, SENIOR, SCENARIO = Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.SCENARIO_REVIEWER


@pytest.fixture
def draft(db):
    """CHAR_01 v1, an N-high draft (N 0.95)."""
    return ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)


def post(client, url, body, etag=None):
    headers = {"HTTP_IF_MATCH": etag} if etag else {}
    return client.post(url, body, format="json", **headers)


REVIEW = {
    "recommendation": "accept",
    "criteria": ALL_MEET,
    "explanation": "Coherent.",
    "submit": True,
}


# --- Profile review: the annotators -------------------------------------------------------


def test_the_queue_is_a_paginated_filterable_orderable_list(draft, api_user):
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_02"), number=1)
    _, client = api_user(ANNOTATOR)
    url = reverse("review-api:profile-list")
    body = client.get(url).json()
    assert body["count"] == 2 and [r["character"] for r in body["results"]] == [
        "CHAR_01",
        "CHAR_02",
    ]
    assert client.get(url, {"ordering": "-character"}).json()["results"][0]["character"] == (
        "CHAR_02"
    )
    only = client.get(url, {"character": "CHAR_02", "page_size": 1}).json()
    assert only["count"] == 1 and only["results"][0]["state"] == "to review"
    bad = client.get(url, {"ordering": "reviewer"})
    assert bad.status_code == 400 and "ordering" in bad.json()


def test_an_annotator_saves_then_submits_with_etags_and_resubmits_idempotently(draft, api_user):
    me, client = api_user(ANNOTATOR)
    url = reverse("review-api:profile-review", args=["CHAR_01"])
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"]
    saved = post(client, url, {**REVIEW, "submit": False}, etag=first["ETag"])
    assert saved.status_code == 200, saved.content
    assert saved.json()["your_review"]["submitted_at"] is None
    # The draft changed the record: the first ETag is stale now.
    stale = post(client, url, REVIEW, etag=first["ETag"])
    assert stale.status_code == 412
    assert ProfileReview.objects.get(reviewer=me).submitted_at is None
    done = post(client, url, REVIEW, etag=saved["ETag"])
    assert done.status_code == 201, done.content
    assert ProfileReview.objects.get(reviewer=me).is_submitted
    again = post(client, url, REVIEW)
    assert again.status_code == 200 and again.json() == done.json()
    other = post(client, url, {**REVIEW, "explanation": "Changed my mind."})
    assert other.status_code == 409 and "cannot change" in other.json()["detail"]
    assert ProfileReview.objects.get(reviewer=me).explanation == "Coherent."


def test_an_incomplete_submit_answers_the_pages_messages(draft, api_user):
    _, client = api_user(ANNOTATOR)
    url = reverse("review-api:profile-review", args=["CHAR_01"])
    response = post(client, url, {"submit": True})
    assert response.status_code == 400
    assert "Choose an overall recommendation." in response.json()["detail"]
    bad = post(client, url, {**REVIEW, "recommendation": "maybe"})
    assert bad.status_code == 400 and "recommendation" in bad.json()["fields"]
    assert not ProfileReview.objects.filter(submitted_at__isnull=False).exists()
    assert client.get(reverse("review-api:profile-review", args=["NOPE"])).status_code == 404


def test_change_requests_are_added_and_withdrawn_only_by_their_author(draft, api_user):
    me, client = api_user(ANNOTATOR)
    _, other = api_user(ANNOTATOR)
    create = reverse("review-api:change-request-create", args=["CHAR_01"])
    request = {
        "field": "description",
        "passage": "reads every situation",
        "concern": "Too categorical.",
        "suggested_correction": "Say 'tends to read'.",
    }
    missing = post(client, create, {**request, "concern": ""})
    assert missing.status_code == 400 and "concern" in missing.json()["fields"]
    wrong = post(client, create, {**request, "passage": "words it never says"})
    assert wrong.status_code == 400 and "does not occur in Description" in wrong.json()["detail"][0]
    made = post(client, create, request)
    assert made.status_code == 201, made.content
    cr = ChangeRequest.objects.get()
    assert cr.review.reviewer == me and made.json()["id"] == cr.pk
    withdraw = reverse("review-api:change-request-withdraw", kwargs={"key": "CHAR_01", "id": cr.pk})
    assert post(other, withdraw, {}).status_code == 404
    assert ChangeRequest.objects.exists()
    done = post(client, withdraw, {})
    assert done.status_code == 200 and done.json()["your_review"]["change_requests"] == []
    assert not ChangeRequest.objects.exists()


def test_other_roles_are_refused(draft, api_user):
    _, senior = api_user(SENIOR)
    _, annotator = api_user(ANNOTATOR)
    _, admin = api_user(Role.ADMIN)
    assert (
        post(senior, reverse("review-api:profile-review", args=["CHAR_01"]), REVIEW).status_code
        == 403
    )
    assert (
        annotator.get(reverse("review-api:profile-adjudicate", args=["CHAR_01"])).status_code == 403
    )
    freeze = reverse("review-api:profile-freeze", args=["CHAR_01"])
    assert post(admin, freeze, {"suitability_confirmed": True}).status_code == 403
    assert not ProfileReview.objects.exists()


# --- Profile review: the senior expert ----------------------------------------------------


@pytest.fixture
def adjudicating(draft, db):
    from tests.factories import UserFactory

    annotators = [UserFactory(roles=[ANNOTATOR]) for _ in range(3)]
    cr = request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    submit("CHAR_01", annotators[1])
    submit("CHAR_01", annotators[2])
    return cr


def test_the_senior_resolves_edits_and_freezes(adjudicating, api_user):
    senior, client = api_user(SENIOR)
    cr = adjudicating
    view = client.get(reverse("review-api:profile-adjudicate", args=["CHAR_01"]))
    assert view.status_code == 200 and view.json()["case_status"] == "adjudicating"
    assert len(view.json()["reviews"]) == 3 and view.json()["open_requests"] == 1
    tag = view["ETag"]

    freeze = reverse("review-api:profile-freeze", args=["CHAR_01"])
    early = post(client, freeze, {"suitability_confirmed": True}, etag=tag)
    assert early.status_code == 400 and "still open" in early.json()["detail"][0]

    resolve = reverse("review-api:change-request-resolve", kwargs={"key": "CHAR_01", "id": cr.pk})
    no_reason = post(client, resolve, {"status": "rejected"}, etag=tag)
    assert no_reason.status_code == 400
    assert no_reason.json()["detail"] == ["Give the reason for rejecting the change request."]
    done = post(client, resolve, {"status": "rejected", "reason": "Observable as is."}, etag=tag)
    assert done.status_code == 201, done.content
    cr.refresh_from_db()
    assert cr.status == "rejected" and cr.resolved_by == senior
    again = post(client, resolve, {"status": "rejected", "reason": "Observable as is."})
    assert again.status_code == 200 and again.json() == done.json()
    other = post(client, resolve, {"status": "accepted"})
    assert other.status_code == 409 and "already rejected" in other.json()["detail"]
    # The resolve changed the adjudication: the ETag read before it is stale.
    stale = post(client, reverse("review-api:profile-edit", args=["CHAR_01"]), {}, etag=tag)
    assert stale.status_code == 412

    edit_url = reverse("review-api:profile-edit", args=["CHAR_01"])
    anchor = post(client, edit_url, {"neuroticism": 0.5})
    assert anchor.status_code == 400 and "anchor trait score" in anchor.json()["detail"][0]
    out_of_range = post(client, edit_url, {"openness": 3})
    assert out_of_range.status_code == 400 and "openness" in out_of_range.json()["fields"]
    edit = post(client, edit_url, {"description": "A careful person.", "note": "Softer."})
    assert edit.status_code == 201, edit.content
    assert edit.json()["changed_fields"] == ["description"] and edit.json()["to_version"] == 2
    assert ProfileVersion.objects.get(number=2).description == "A careful person."
    detail = client.get(
        reverse("review-api:profile-edit-detail", args=[ProfileEdit.objects.get().pk])
    )
    assert detail.status_code == 200 and detail.json()["editor"] == senior.username

    unconfirmed = post(client, freeze, {"suitability_confirmed": False})
    assert unconfirmed.status_code == 400 and "suitability" in unconfirmed.json()["detail"][0]
    frozen = post(client, freeze, {"suitability_confirmed": True, "note": "Fit."})
    assert frozen.status_code == 201 and frozen.json()["version"] == 2
    assert ProfileVersion.objects.get(number=2).is_frozen
    assert ProfileReviewCase.objects.get().status == "frozen"
    assert post(client, freeze, {"suitability_confirmed": True, "note": "Fit."}).status_code == 200
    assert post(client, freeze, {"suitability_confirmed": True, "note": "x"}).status_code == 409


# --- Scenario review ----------------------------------------------------------------------


@pytest.fixture
def scenario(db):
    return ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")


SID = "SCN_SCHOOL_AGE_1"
APPROVE = {
    "decision": "approve",
    "logically_consistent": True,
    "psychologically_plausible": True,
    "character_agnostic": True,
}


def test_pass_one_screening_and_revision(scenario, api_user):
    one, first = api_user(SCENARIO)
    two, second = api_user(SCENARIO)
    screen = reverse("review-api:scenario-screen", args=[SID])
    unsaid = post(first, screen, {"decision": "flag"})
    assert unsaid.status_code == 400
    assert unsaid.json()["detail"] == ["Say what needs revising when flagging a scenario."]
    half = post(first, screen, {**APPROVE, "character_agnostic": False})
    assert half.status_code == 400 and "all three checks" in half.json()["detail"][0]
    flagged = post(first, screen, {"decision": "flag", "note": "Names the age."})
    assert flagged.status_code == 201 and flagged.json()["review_stage"] == "revision"

    detail = reverse("review-api:scenario-review", args=[SID])
    tag = second.get(detail)["ETag"]
    revise = reverse("review-api:scenario-revise", args=[SID])
    nothing = post(second, revise, {"note": "No change."}, etag=tag)
    assert nothing.status_code == 400 and "changes nothing" in nothing.json()["detail"][0]
    wrong_age = post(second, revise, {"age": 30, "note": "Older."}, etag=tag)
    assert wrong_age.status_code == 400 and "Age 30 is outside" in wrong_age.json()["detail"][0]
    revised = post(
        second,
        revise,
        {"context_text": "A neighbour trusted you with the plants.", "note": "No teacher."},
        etag=tag,
    )
    assert revised.status_code == 201, revised.content
    assert revised.json()["version"] == 2 and revised.json()["review_stage"] == "screening"
    assert ScenarioVersion.objects.get(number=2).context_text.startswith("A neighbour")
    stale = post(first, screen, APPROVE, etag=tag)
    assert stale.status_code == 412

    assert post(first, screen, APPROVE).status_code == 201
    assert post(first, screen, APPROVE).status_code == 200
    changed = post(first, screen, {"decision": "flag", "note": "On second thought."})
    assert changed.status_code == 409 and "already screened" in changed.json()["detail"]
    done = post(second, screen, APPROVE)
    assert done.status_code == 201 and done.json()["review_stage"] == "rating"
    assert ScreeningDecision.objects.filter(version__number=2).count() == 2


def test_pass_two_ratings_are_blind_idempotent_and_final(scenario, api_user):
    one, first = api_user(SCENARIO)
    two, second = api_user(SCENARIO)
    approve(SID, one)
    approve(SID, two)
    rate(SID, two)
    url = reverse("review-api:scenario-rate", args=[SID])
    detail = first.get(reverse("review-api:scenario-review", args=[SID])).json()
    assert detail["ratings"] == []  # blind until mine is in
    missing = post(first, url, {"scores": {"duty": 5}})
    assert missing.status_code == 400 and "Rate Intellect from 1 to 7." in str(missing.json())
    made = post(first, url, {"scores": SCORES})
    assert made.status_code == 201 and len(made.json()["ratings"]) == 2
    assert ScenarioReview.objects.get().stage == "complete"
    again = post(first, url, {"scores": SCORES})
    assert again.status_code == 200 and again.json() == made.json()
    other = post(first, url, {"scores": {**SCORES, "duty": 1}})
    assert other.status_code == 409 and "cannot be rated now" in other.json()["detail"]
    assert DiamondsRating.objects.get(reviewer=one).duty == SCORES["duty"]


def test_a_scenario_entered_by_hand_and_the_queue(api_user):
    _, client = api_user(SCENARIO)
    _, admin = api_user(Role.ADMIN)
    content = {
        "stage": "school_age",
        "age": 9,
        "age_range": "ages 6-11",
        "name": "The lost notebook",
        "category": "Peer conflict",
        "intensity": "Medium",
        "description_for_agent": "A classmate reads your notebook aloud.",
        "setting_location": "Classroom",
        "setting_time": "Monday morning",
        "setting_atmosphere": "Noisy",
        "context_text": "You left your notebook on the desk.",
        "trigger_sender": "Classmate",
        "trigger_message": "Listen to this!",
        "note": "From the workshop.",
    }
    url = reverse("review-api:scenario-new")
    assert post(admin, url, content).status_code == 403
    young = post(client, url, {**content, "age": 30})
    assert young.status_code == 400 and "Age 30 is outside School age" in young.json()["detail"][0]
    made = post(client, url, content)
    assert made.status_code == 201, made.content
    assert made.json()["scenario_id"] == "SCN_SCHOOL_AGE_1"
    assert made.json()["content"]["name"] == "The lost notebook"
    queue = client.get(reverse("review-api:scenario-list"), {"needs_you": "true"}).json()
    assert queue["count"] == 1 and queue["results"][0]["your_status"] == "Pass 1: screen it"
    filtered = client.get(reverse("review-api:scenario-list"), {"review_stage": "rating"})
    assert filtered.json()["count"] == 0


def test_blueprints_are_validated_by_the_pages_form(api_user):
    _, client = api_user(SCENARIO)
    _, admin = api_user(Role.ADMIN)
    url = reverse("review-api:blueprint-list")
    bad = post(client, url, {"title": "T", "summary": "S", "stage": "nowhere"})
    assert bad.status_code == 400 and {"stage", "diamonds_dimension"} <= set(bad.json()["fields"])
    assert post(admin, url, {}).status_code == 403
    listing = admin.get(url).json()
    assert listing == {"count": 0, "next": None, "previous": None, "results": []}
