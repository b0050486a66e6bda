"""Arbitration over the API (issue #23), with token-only clients: the pairs list
(paginated, filtered), the pair as the arbitrator's page shows it (candidates by number,
families hidden), the decision (201, 200 again, 409 for another, 412 when stale, the
form's and the service's messages) and the admin's reopening."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from adjudication.arbitration.models import (
    AdjudicationSettings,
    ArbitrationDecision,
    ReferenceResponse,
)
from annotation.comparison.models import ComparisonPair
from core.roles import Role
from tests.comparison.helpers import MODEL_NAMES, TEXTS, assign, judge, make_pair, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def escalated():
    who = people()
    pair = make_pair(key="CHAR_81")
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED
    return {**who, "pair": pair}


def number_of(body, family):
    """The number under which the pair endpoint shows ``family``'s candidate (by text)."""
    summary = TEXTS[family][0]
    return next(c["number"] for c in body["candidates"] if c["summary"] == summary)


def test_the_pairs_list_is_paginated_and_filtered_by_status(escalated, api_as):
    who = escalated
    adopted = make_pair(key="CHAR_82")
    for a in assign(adopted, who["annotators"], who["admin"]).values():
        judge(a, family="gemini")
    open_pair = make_pair(key="CHAR_83")  # with the annotators: in neither list
    client = api_as(who["arbitrator"])
    everything = client.get(reverse("adjudication-api:pairs")).json()
    assert everything["count"] == 2
    assert {r["character"] for r in everything["results"]} == {"CHAR_81", "CHAR_82"}
    queue = client.get(reverse("adjudication-api:pairs"), {"status": "escalated"}).json()
    assert [r["id"] for r in queue["results"]] == [who["pair"].pk]
    assert queue["results"][0]["escalation_reasons"]
    decided = client.get(reverse("adjudication-api:pairs"), {"status": "adopted"}).json()
    assert [r["character"] for r in decided["results"]] == ["CHAR_82"]
    ordered = client.get(reverse("adjudication-api:pairs"), {"ordering": "-character"}).json()
    assert [r["character"] for r in ordered["results"]] == ["CHAR_82", "CHAR_81"]
    bad = client.get(reverse("adjudication-api:pairs"), {"status": "annotating"})
    assert bad.status_code == 400 and "status" in bad.json()
    assert open_pair.pk not in {r["id"] for r in everything["results"]}
    assert api_as(who["admin"]).get(reverse("adjudication-api:pairs")).status_code == 200
    annotator = api_as(who["annotators"][0])
    assert annotator.get(reverse("adjudication-api:pairs")).status_code == 403
    assert annotator.get(reverse("adjudication-api:pair", args=[who["pair"].pk])).status_code == 403


def test_the_pair_shows_numbers_and_judgments_and_no_family_by_default(escalated, api_as):
    pair = escalated["pair"]
    client = api_as(escalated["arbitrator"])
    answer = client.get(reverse("adjudication-api:pair", args=[pair.pk]))
    assert answer.status_code == 200
    assert answer["ETag"]
    body = answer.json()
    assert [c["number"] for c in body["candidates"]] == [1, 2, 3]
    assert all(c["family"] == "" for c in body["candidates"])
    text = answer.content.decode()
    for family, name in MODEL_NAMES.items():
        assert name not in text
        assert f'"{family}"' not in text
    claude = number_of(body, "claude")
    assert sorted(body["candidates"][claude - 1]["chosen_by"]) == [
        "cmp-annotator-1",
        "cmp-annotator-2",
    ]
    assert {j["selected"] for j in body["judgments"]} == {claude, number_of(body, "gpt")}
    assert body["can_decide"] is True and body["decision"] is None and body["reference"] is None
    AdjudicationSettings.objects.create(pk=1, show_family_to_arbitrator=True)
    shown = client.get(reverse("adjudication-api:pair", args=[pair.pk])).json()
    assert shown["candidates"][claude - 1]["family"] == "Claude"
    assert client.get(reverse("adjudication-api:pair", args=[999999])).status_code == 404


def test_an_edit_is_201_then_200_and_another_decision_is_409(escalated, api_as):
    pair = escalated["pair"]
    client = api_as(escalated["arbitrator"])
    page = client.get(reverse("adjudication-api:pair", args=[pair.pk]))
    body = page.json()
    claude = number_of(body, "claude")
    guidance = next(j["id"] for j in body["judgments"] if j["revision_guidance"])
    edit = {
        "kind": "edited",
        "candidate": claude,
        "summary": TEXTS["claude"][0],
        "emotional_tone": "",
        "core_reasoning": "",
        "final_decision": "I water Ms. Lee's plants, then tell the teacher I am going.",
        "guidance_followed": [guidance],
    }
    url = reverse("adjudication-api:decide", args=[pair.pk])
    first = client.post(url, edit, format="json", HTTP_IF_MATCH=page["ETag"])
    assert first.status_code == 201, first.content
    decision = ArbitrationDecision.objects.get(pair=pair)
    assert decision.kind == "edited"
    assert decision.source_candidate.family == "claude"
    assert list(decision.guidance_followed.values_list("pk", flat=True)) == [guidance]
    reference = ReferenceResponse.objects.get(character=pair.character, superseded_at=None)
    assert reference.final_decision == edit["final_decision"]
    assert first.json()["candidate"] == claude
    assert first.json()["reference"]["provenance"] == "Edited by cmp-arbitrator"
    assert first.json()["reference"]["source_family"] == ""
    assert first.json()["pair_status"] == "resolved"

    again = client.post(url, edit, format="json")
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    stale = client.post(url, edit, format="json", HTTP_IF_MATCH=page["ETag"])
    assert stale.status_code == 412
    other = client.post(url, {"kind": "discarded", "reason": "Unfit."}, format="json")
    assert other.status_code == 409
    assert "already has a decision" in other.json()["detail"]
    assert ArbitrationDecision.objects.count() == 1


def test_the_forms_and_the_services_messages_come_back_field_by_field(escalated, api_as):
    pair = escalated["pair"]
    url = reverse("adjudication-api:decide", args=[pair.pk])
    client = api_as(escalated["arbitrator"])
    no_kind = client.post(url, {"reason": "x"}, format="json")
    assert no_kind.status_code == 400 and "kind" in no_kind.json()["fields"]
    no_reason = client.post(url, {"kind": "discarded"}, format="json")
    assert no_reason.status_code == 400
    assert no_reason.json()["detail"] == [
        "Give the reason the pair is fundamentally unfit for evaluation."
    ]
    no_candidate = client.post(url, {"kind": "adopted"}, format="json")
    assert no_candidate.json()["detail"] == ["Select the candidate to adopt or edit."]
    empty = client.post(url, {"kind": "rewritten", "summary": "Mine."}, format="json")
    assert "concrete behavioral decision" in empty.json()["detail"][0]
    assert not ArbitrationDecision.objects.exists()
    # Nobody arbitrates a pair they judged (App. D.2): a judge who is also an arbitrator.
    judge_user = escalated["annotators"][0]
    judge_user.groups.add(Group.objects.get(name=Role.ARBITRATOR.value))
    own = api_as(judge_user)
    assert own.get(reverse("adjudication-api:pair", args=[pair.pk])).json()["can_decide"] is False
    refused = own.post(url, {"kind": "discarded", "reason": "Unfit."}, format="json")
    assert refused.status_code == 403  # a conflict of interest (issue #24)
    assert "You judged" in refused.json()["detail"]
    admin = api_as(escalated["admin"])
    assert admin.post(url, {"kind": "discarded", "reason": "x"}, format="json").status_code == 403
    assert not ArbitrationDecision.objects.exists()


def test_an_admin_reopens_once_and_the_reference_is_withdrawn(escalated, api_as):
    pair = escalated["pair"]
    arbitrator = api_as(escalated["arbitrator"])
    body = arbitrator.get(reverse("adjudication-api:pair", args=[pair.pk])).json()
    decided = arbitrator.post(
        reverse("adjudication-api:decide", args=[pair.pk]),
        {"kind": "adopted", "candidate": number_of(body, "gpt")},
        format="json",
    )
    assert decided.status_code == 201
    url = reverse("adjudication-api:reopen", args=[pair.pk])
    assert arbitrator.post(url, {"reason": "x"}, format="json").status_code == 403
    admin = api_as(escalated["admin"])
    missing = admin.post(url, {}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["fields"]
    first = admin.post(url, {"reason": "Drops the deadline."}, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["reopen_reason"] == "Drops the deadline."
    assert first.json()["pair_status"] == "escalated"
    assert not ReferenceResponse.objects.filter(superseded_at__isnull=True).exists()
    again = admin.post(url, {"reason": "Drops the deadline."}, format="json")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    other = admin.post(url, {"reason": "Another reason."}, format="json")
    assert other.status_code == 400
    assert other.json()["detail"] == ["This pair has no decision to reopen."]
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED
