"""Done when (issue #23): one item from review through the reference-label audit, with
tokens only, as several roles. The judge flags an assembled item; the item reviewer
revises a distractor over the API; the revised version is screened again (eager Celery,
the fake provider as the judge) and flagged again; the reviewer retains it, so it joins
the final set. The admin creates a label audit over the API that samples it; three audit
experts select blind (two on the key, one not); the audit adjudicator keeps the item;
the audit's items and outcomes endpoints say so, and the construction export carries the
audit's record in the item's label_audit chain."""

import json

import pytest
from django.urls import reverse

from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem, McqScreening
from adjudication.mcq.services import item_assembly
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import LabelAudit, LabelAuditItem, LabelSelection
from core.roles import Role
from llm.testing.replies import json_reply
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory
from tests.mcq.conftest import PLAUSIBLE, judge_config, reference, verdict
from tests.stored_reports import computed

from .test_label_audit_api import FORBIDDEN_TO_EXPERTS, assert_blind

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def judge(settings):
    from llm.testing.fake_server import FakeProviderServer

    with FakeProviderServer() as server:
        settings.HEARTBENCH_MCQ_SCREENER_PROVIDER = judge_config(server)
        yield server


def test_one_item_from_review_through_the_label_audit(
    api_user, judge, eager_celery, django_capture_on_commit_callbacks
):
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    target = reference(
        "CHAR_01", scenario, "I stay home to water the class plants, as I promised my teacher."
    )
    for key, text in PLAUSIBLE.items():
        reference(key, scenario, text)
    item = item_assembly.mcq_item_assemble(reference_id=target.pk, selector=False, dispatch=False)
    assert item.status == McqItem.Status.SCREENING

    admin, admin_api = api_user(Role.ADMIN)
    senior, senior_api = api_user(Role.ARBITRATOR, username="senior-1")

    # The admin queues the screening; the judge flags R2.
    judge.enqueue(json_reply(verdict(item, checks={"R2": "flag"})))
    with django_capture_on_commit_callbacks(execute=True):
        answer = admin_api.post(reverse("mcq-api:screen", args=[item.pk]))
    assert answer.status_code == 202, answer.content
    item.refresh_from_db()
    assert item.status == McqItem.Status.FLAGGED

    # The reviewer finds it in the queue and reads it with its ETag.
    queue = senior_api.get(reverse("mcq-api:queue"), {"status": "flagged"}).json()
    assert [(r["question_id"], r["concerns"]) for r in queue["results"]] == [
        (item.question_id, ["R2"])
    ]
    read = senior_api.get(reverse("mcq-api:item", args=[item.pk]))
    assert read.status_code == 200 and read.json()["version"] == 1
    distractor = next(o["label"] for o in read.json()["options"] if not o["is_correct"])

    # Revise a distractor: a new version, screened again in full, flagged again (R5).
    revised_text = "I water the plants early on Saturday and then join Mom at the park."
    judge.enqueue(
        json_reply(verdict(item, checks={"R5": "uncertain"}) | {"item_version": 2}),
    )
    with django_capture_on_commit_callbacks(execute=True):
        answer = senior_api.post(
            reverse("mcq-api:decide", args=[item.pk]),
            {
                "action": "revise_distractor",
                "label": distractor,
                "content": revised_text,
                "note": "R2: two distractors said the same",
            },
            format="json",
            HTTP_IF_MATCH=read["ETag"],
        )
    assert answer.status_code == 201, answer.content
    assert answer.json()["result_version"] == 2
    item.refresh_from_db()
    assert item.version == 2 and item.status == McqItem.Status.FLAGGED
    screenings = list(item.screenings.order_by("created_at"))
    assert [s.item_version.number for s in screenings] == [1, 2]
    assert screenings[-1].outcome == McqScreening.Outcome.FLAGGED
    assert revised_text in judge.requests[-1].turns()[-1][1]

    # The ETag read before the revision is stale now.
    stale = senior_api.post(
        reverse("mcq-api:decide", args=[item.pk]),
        {"action": "retain", "note": "The key holds."},
        format="json",
        HTTP_IF_MATCH=read["ETag"],
    )
    assert stale.status_code == 412

    # Retained on version 2: the item joins the final set.
    fresh = senior_api.get(reverse("mcq-api:item", args=[item.pk]))
    retain = {"action": "retain", "version": 2, "note": "R5: the profile settles it."}
    answer = senior_api.post(
        reverse("mcq-api:decide", args=[item.pk]),
        retain,
        format="json",
        HTTP_IF_MATCH=fresh["ETag"],
    )
    assert answer.status_code == 201, answer.content
    item.refresh_from_db()
    assert item.status == McqItem.Status.FINAL
    again = senior_api.post(reverse("mcq-api:decide", args=[item.pk]), retain, format="json")
    assert again.status_code == 200 and again.json()["id"] == answer.json()["id"]

    # The admin creates the label audit over the API; it samples the item.
    experts = [api_user(Role.AUDIT_EXPERT, username=f"auditor-{n}") for n in (1, 2, 3)]
    adjudicator, adjudicator_api = api_user(Role.AUDIT_ADJUDICATOR, username="audit-adj")
    created = admin_api.post(
        reverse("audit-api:labels-api:audit-list"),
        {
            "experts": [u.pk for u, _ in experts],
            "adjudicator": adjudicator.pk,
            "items_per_stratum": 1,
            "seed": 31,
            "note": "Done-when audit",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    audit_id = created.json()["id"]
    assert created.json()["total"] == 1 and created.json()["reproduced"] is True
    audit_item = LabelAuditItem.objects.get(audit_id=audit_id)
    assert audit_item.item_id == item.pk and audit_item.item_version.number == 2

    # Three experts select blind: two on the key, one not.
    key = item.correct_answer
    other = next(label for label in "ABCD" if label != key)
    for n, (_user, client) in enumerate(experts, start=1):
        mine = client.get(reverse("audit-api:labels-api:expert-queue", args=[audit_id])).json()
        assert [r["state"] for r in mine["results"]] == ["todo"]
        row_id = mine["results"][0]["id"]
        page = client.get(reverse("audit-api:labels-api:expert-item", args=[row_id]))
        assert page.status_code == 200
        assert revised_text in [o["content"] for o in page.json()["options"]]
        assert_blind(page, FORBIDDEN_TO_EXPERTS)
        choice = other if n == 3 else key
        draft = client.put(
            reverse("audit-api:labels-api:draft", args=[row_id]),
            {"choice": choice, "note": f"auditor-{n} drafts"},
            format="json",
            HTTP_IF_MATCH=page["ETag"],
        )
        assert draft.status_code == 200 and draft.json()["my_choice"] == choice
        submitted = client.post(
            reverse("audit-api:labels-api:selection", args=[row_id]),
            {"choice": choice, "note": f"auditor-{n}: fits the profile."},
            format="json",
        )
        assert submitted.status_code == 201, submitted.content
        assert submitted.json()["submitted"] is True
        assert_blind(submitted, FORBIDDEN_TO_EXPERTS)
        # Nobody's selection but one's own, before or after the comparison.
        others = [f"auditor-{m}: fits" for m in (1, 2, 3) if m != n]
        assert not any(o in submitted.content.decode() for o in others)
    assert LabelSelection.objects.filter(submitted_at__isnull=False).count() == 3

    # The adjudicator sees the disagreement and keeps the item.
    items = adjudicator_api.get(
        reverse("audit-api:labels-api:audit-items", args=[audit_id]), {"status": "adjudicating"}
    ).json()
    assert [
        (r["question_id"], r["experts_on_key"], r["key_at_audit"]) for r in items["results"]
    ] == [(item.question_id, 2, key)]
    url = reverse("audit-api:labels-api:adjudication", args=[audit_item.pk])
    page = adjudicator_api.get(url)
    assert page.status_code == 200
    assert sorted(s["choice"] for s in page.json()["selections"]) == sorted([key, key, other])
    decision = {"decision": "usable_as_is", "note": "The dissent does not hold."}
    answer = adjudicator_api.post(url, decision, format="json", HTTP_IF_MATCH=page["ETag"])
    assert answer.status_code == 201, answer.content
    assert answer.json()["outcome"] == "usable_as_is"
    assert adjudicator_api.post(url, decision, format="json").status_code == 200
    conflict = adjudicator_api.post(
        url, {"decision": "removal", "note": "Changed my mind."}, format="json"
    )
    assert conflict.status_code == 409
    assert "not awaiting adjudication" in " ".join(conflict.json()["detail"])

    # The audit's items and outcomes endpoints.
    items = adjudicator_api.get(reverse("audit-api:labels-api:audit-items", args=[audit_id]))
    assert [(r["status"], r["outcome"], r["decision"]) for r in items.json()["results"]] == [
        ("resolved", "usable_as_is", "usable_as_is")
    ]
    computed(label_reports.KIND, str(audit_id))
    outcomes = adjudicator_api.get(reverse("audit-api:labels-api:outcomes", args=[audit_id]))
    counts = {r["key"]: r["n"] for r in outcomes.json()["rows"]}
    assert counts["agree_2"] == 1 and counts["usable_as_is"] == 1 and counts["approved"] == 1
    assert LabelAudit.objects.get(pk=audit_id).status == LabelAudit.Status.COMPLETE

    # What the next stage reads: the item stays in the final set, and the construction
    # export carries the audit in the item's chain.
    item.refresh_from_db()
    assert item.status == McqItem.Status.FINAL and item.version == 2
    bundle = build_export()
    questions = json.loads(bundle.files["construction/items.json"])["questions"]
    (question,) = [q for q in questions if q["question_id"] == item.question_id]
    (record,) = question["chain"]["label_audit"]
    assert record["audit"] == audit_id and record["outcome"] == "usable_as_is"
    assert record["experts_on_key"] == 2 and record["version_audited"] == 2
    assert [s["choice"] for s in record["selections"]] == [key, key, other]
    assert record["adjudication"]["adjudicator"] == "audit-adj"
    assert [r["action"] for r in question["chain"]["item_review"]] == [
        "revise_distractor",
        "retain",
    ]
