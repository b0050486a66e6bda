"""MCQ item review over the API with tokens (issue #23): the queue (paginated, filtered,
ordered), an item with its ETag, the review actions through the page's service and form
(400 naming the field or with the page's message, 412 stale, 409 no longer under review,
200 on a replay), the revise form's own draft, "screen now" and assembly runs, each for
the page's roles only."""

import pytest
from django.urls import reverse

from adjudication.mcq.models import McqAssemblyRun, McqItem, McqReviewDecision
from adjudication.mcq.services import item_assembly
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory
from tests.mcq.conftest import KEY, PLAUSIBLE, flag, reference
from tests.web.conftest import SECRET_MODEL_NAMES

pytestmark = pytest.mark.django_db


def pair(n: int):
    """A scenario with CHAR_01's reference and four plausible others; the target's
    reference."""
    scenario = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{n}")
    character = CharacterFactory(key="CHAR_01") if n == 1 else None
    if character is not None:
        ProfileVersionFactory(character=character, number=1)
    target = reference("CHAR_01", scenario, KEY)
    for key, text in PLAUSIBLE.items():
        reference(key, scenario, text)
    return target


@pytest.fixture
def flagged(db):
    target = pair(1)
    item = item_assembly.mcq_item_assemble(reference_id=target.pk, selector=False, dispatch=False)
    return flag(item)


@pytest.fixture
def reviewer(api_user):
    return api_user(Role.ARBITRATOR, username="senior-1")


def distractor(item):
    return next(o.label for o in item.options.order_by("label") if not o.is_correct)


def decide(client, item, body, **headers):
    return client.post(reverse("mcq-api:decide", args=[item.pk]), body, format="json", **headers)


# --- Reads --------------------------------------------------------------------------------


def test_the_queue_is_paginated_filtered_and_ordered(flagged, reviewer):
    _, client = reviewer
    body = client.get(reverse("mcq-api:queue")).json()
    assert body["count"] == 1 and body["next"] is None
    (row,) = body["results"]
    assert row["question_id"] == flagged.question_id and row["status"] == "flagged"
    assert row["screening_outcome"] == "flagged" and row["concerns"] == ["R2"]
    assert row["character"] == "CHAR_01" and row["options"] == 4
    url = reverse("mcq-api:queue")
    assert client.get(url, {"status": "needs_completion"}).json()["count"] == 0
    assert client.get(url, {"screening_outcome": "passed"}).json()["count"] == 0
    assert client.get(url, {"character": "CHAR_01"}).json()["count"] == 1
    assert client.get(url, {"ordering": "-question_id"}).json()["count"] == 1
    bad = client.get(url, {"ordering": "judge_model"})
    assert bad.status_code == 400 and "ordering" in bad.json()
    assert client.get(url, {"status": "final"}).status_code == 400


@pytest.mark.parametrize(
    "role", [Role.PRIMARY_ANNOTATOR, Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR]
)
def test_other_roles_get_403_on_every_item_endpoint(flagged, api_user, role):
    _, client = api_user(role)
    assert client.get(reverse("mcq-api:queue")).status_code == 403
    assert client.get(reverse("mcq-api:item", args=[flagged.pk])).status_code == 403
    assert decide(client, flagged, {"action": "retain", "note": "x"}).status_code == 403
    assert client.get(reverse("mcq-api:revise-draft", args=[flagged.pk])).status_code == 403
    assert client.post(reverse("mcq-api:screen", args=[flagged.pk])).status_code == 403
    assert client.get(reverse("mcq-api:runs")).status_code == 403
    assert McqReviewDecision.objects.count() == 0


def test_the_item_carries_its_etag_and_never_the_judges_model(flagged, reviewer):
    _, client = reviewer
    answer = client.get(reverse("mcq-api:item", args=[flagged.pk]))
    assert answer.status_code == 200 and answer["ETag"].startswith('"')
    body = answer.json()
    assert body["version"] == 1 and body["status"] == "flagged" and body["revisable"] is True
    assert body["correct_answer"] == flagged.correct_answer
    assert sum(o["is_correct"] for o in body["options"]) == 1
    assert body["screening"]["outcome"] == "flagged"
    assert [c["rule_id"] for c in body["checks"] if c["status"] != "pass"] == ["R2"]
    used = {o["source_character"] for o in body["options"]}
    replacements = {r["character"] for r in body["replacement_references"]}
    assert replacements and not replacements & used
    text = answer.content.decode()
    assert SECRET_MODEL_NAMES["claude"] not in text and "anthropic" not in text
    assert client.get(reverse("mcq-api:item", args=[99999])).status_code == 404


# --- Review actions -----------------------------------------------------------------------


def test_a_revision_makes_version_two_and_the_old_etag_is_stale(flagged, reviewer):
    user, client = reviewer
    read = client.get(reverse("mcq-api:item", args=[flagged.pk]))
    body = {
        "action": "revise_distractor",
        "label": distractor(flagged),
        "content": "I water the plants at dawn, then ride to the park with Mom.",
        "note": "R2",
    }
    answer = decide(client, flagged, body, HTTP_IF_MATCH=read["ETag"])
    assert answer.status_code == 201, answer.content
    assert answer.json()["item_version"] == 1 and answer.json()["result_version"] == 2
    assert answer.json()["reviewer"] == "senior-1"
    assert answer["ETag"] != read["ETag"]
    flagged.refresh_from_db()
    assert flagged.version == 2 and flagged.status == McqItem.Status.SCREENING
    # The same action again: the first decision, not a second version.
    again = decide(client, flagged, body | {"version": 1}, HTTP_IF_MATCH=read["ETag"])
    assert again.status_code == 200 and again.json()["id"] == answer.json()["id"]
    flagged.refresh_from_db()
    assert flagged.version == 2 and McqReviewDecision.objects.count() == 1


def test_stale_writes_answer_412(flagged, reviewer):
    _, client = reviewer
    read = client.get(reverse("mcq-api:item", args=[flagged.pk]))
    McqItem.objects.filter(pk=flagged.pk).update(status=McqItem.Status.NEEDS_COMPLETION)
    stale = decide(client, flagged, {"action": "remove", "note": "dup"}, HTTP_IF_MATCH=read["ETag"])
    assert stale.status_code == 412 and "changed since you read it" in stale.json()["detail"]
    McqItem.objects.filter(pk=flagged.pk).update(status=McqItem.Status.FLAGGED, version=3)
    stale = decide(client, flagged, {"action": "remove", "note": "dup", "version": 1})
    assert stale.status_code == 412
    assert "changed since you opened it (now version 3)" in stale.json()["detail"]
    assert McqReviewDecision.objects.count() == 0


def test_bad_actions_answer_400_with_the_pages_messages(flagged, reviewer):
    _, client = reviewer
    answer = decide(client, flagged, {"action": "approve"})
    assert answer.status_code == 400 and "action" in answer.json()["fields"]
    answer = decide(client, flagged, {"action": "retain"})
    assert answer.status_code == 400
    assert answer.json()["detail"] == ["Give a note for “Retained as-is”: say why."]
    answer = decide(
        client,
        flagged,
        {"action": "revise_distractor", "label": flagged.correct_answer, "content": "x"},
    )
    assert answer.status_code == 400
    assert "is the key; reconsider the key instead" in answer.json()["detail"][0]
    answer = decide(client, flagged, {"action": "retain", "note": "ok", "version": "two"})
    assert answer.status_code == 400 and "version" in answer.json()["fields"]
    assert McqReviewDecision.objects.count() == 0


def test_an_item_no_longer_under_review_answers_409(flagged, reviewer):
    _, client = reviewer
    assert decide(client, flagged, {"action": "retain", "note": "holds"}).status_code == 201
    flagged.refresh_from_db()
    assert flagged.status == McqItem.Status.FINAL
    answer = decide(client, flagged, {"action": "remove", "note": "dup"})
    assert answer.status_code == 409 and "only flagged or incomplete" in answer.json()["detail"]
    # Another reviewer's identical action is not a replay of the first's.
    assert McqReviewDecision.objects.count() == 1


# --- The revise form's draft --------------------------------------------------------------


def test_the_revise_draft_is_ones_own_and_refuses_stale_saves(flagged, reviewer, api_user):
    _, client = reviewer
    url = reverse("mcq-api:revise-draft", args=[flagged.pk])
    empty = client.get(url)
    assert empty.status_code == 200 and empty.json()["saved_at"] is None
    saved = client.put(
        url,
        {"label": "C", "content": "half-typed", "note": "R2"},
        format="json",
        HTTP_IF_MATCH=empty["ETag"],
    )
    assert saved.status_code == 200 and saved.json()["content"] == "half-typed"
    assert client.get(url).json()["label"] == "C"
    stale = client.put(url, {"content": "other"}, format="json", HTTP_IF_MATCH=empty["ETag"])
    assert stale.status_code == 412
    _, colleague = api_user(Role.ARBITRATOR)
    assert colleague.get(url).json()["content"] == ""
    # The action clears it.
    decide(client, flagged, {"action": "retain", "note": "holds"})
    assert client.get(url).json()["content"] == ""
    closed = client.put(url, {"content": "late"}, format="json")
    assert closed.status_code == 403


# --- Screening and assembly ---------------------------------------------------------------


def test_screen_now_is_the_admins_and_only_for_items_awaiting_it(flagged, api_user, reviewer):
    _, admin = api_user(Role.ADMIN)
    url = reverse("mcq-api:screen", args=[flagged.pk])
    refused = admin.post(url)
    assert refused.status_code == 409 and "is not awaiting screening" in refused.json()["detail"]
    McqItem.objects.filter(pk=flagged.pk).update(status=McqItem.Status.SCREENING)
    assert admin.post(url).json() == {"detail": "Screening queued."}
    assert admin.post(reverse("mcq-api:screen", args=[99999])).status_code == 404
    assert reviewer[1].post(url).status_code == 403


def test_the_admin_starts_an_assembly_run_and_follows_it(api_user, reviewer):
    pair(1)
    _, admin = api_user(Role.ADMIN)
    url = reverse("mcq-api:runs")
    bad = admin.post(url, {"similarity_max": 5}, format="json")
    assert bad.status_code == 400 and "similarity_max" in bad.json()["fields"]
    for shape in ([1, 2], {"similarity_max": {"x": 1}}, {"relevance_min": "a lot"}):
        bad = admin.post(url, shape, format="json")  # once a 500 (the fuzz run found it)
        assert bad.status_code == 400 and bad.json()["detail"], shape
    assert not McqAssemblyRun.objects.exists()
    bad = admin.post(url, {"include_unadjudicated": True}, format="json")
    assert bad.status_code == 400
    assert bad.json()["fields"]["gate_override_reason"] == [
        "Give the reason for overriding the gate."
    ]
    started = admin.post(url, {"similarity_max": 0.9}, format="json")
    assert started.status_code == 201, started.content
    run = McqAssemblyRun.objects.get()
    assert started.json()["id"] == run.pk and run.params["similarity_max"] == 0.9
    busy = admin.post(url, {}, format="json")
    assert busy.status_code == 400 and "already queued or running" in busy.json()["detail"][0]
    listed = admin.get(url, {"status": "queued"}).json()
    assert [r["id"] for r in listed["results"]] == [run.pk]
    detail = admin.get(reverse("mcq-api:run", args=[run.pk])).json()
    assert detail["status"] == "queued" and set(detail["keys"]) == set("ABCD")
    assert admin.get(reverse("mcq-api:run", args=[99999])).status_code == 404
    assert reviewer[1].post(url, {}, format="json").status_code == 403
