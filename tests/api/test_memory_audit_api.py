"""The memory quality audit over the REST API with tokens only (issue #23): the
reviewers' decisions, the senior's edit, the admin's runs, finalize, classifier and
settings, with the pages' services, forms, roles and messages; ETags refuse a stale
write (412); a decision repeated as it was answers 200, a different one 409."""

import pytest
from django.urls import reverse

from audit.memory_quality.models import AuditRun, AuditSettings, MemoryCase, OverrideAgreement
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from tests.factories import CharacterFactory, UserFactory
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written

pytestmark = pytest.mark.django_db

MEMORY, SENIOR, ADMIN = Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN


def post(client, url, body, etag=None):
    headers = {"HTTP_IF_MATCH": etag} if etag else {}
    return client.post(url, body, format="json", **headers)


@pytest.fixture
def audited(db):
    """A finished run whose two flagged memories await a memory reviewer."""
    char = CharacterFactory(key="CHAR_01")
    hand_written(char, sequence=1, content_full=CLEAN + " Years later I understood it all.")
    hand_written(char, sequence=2, event_age=20, content_full=DRIFT)
    run = audit_run_start(created_by=UserFactory(roles=[ADMIN]))
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    run.refresh_from_db()
    cases = list(MemoryCase.objects.filter(run=run).order_by("memory__sequence"))
    MemoryCase.objects.filter(run=run).update(status=MemoryCase.Status.REVIEW)
    return {"run": run, "first": cases[0], "second": cases[1]}


def test_the_case_queue_is_paginated_and_filtered(audited, api_user):
    _, client = api_user(MEMORY)
    url = reverse("audit-api:case-list")
    body = client.get(url).json()  # a memory reviewer's default: awaiting review
    assert (
        body["count"] == 2 and body["results"][0]["memory_id"] == audited["first"].memory.memory_id
    )
    assert client.get(url, {"status": "senior"}).json()["count"] == 0
    assert client.get(url, {"page_size": 1}).json()["next"]
    assert client.get(url, {"status": "nonsense"}).status_code == 400
    _, participant = api_user(Role.BASELINE_PARTICIPANT)
    assert participant.get(url).status_code == 403


def test_a_reviewer_confirms_a_defect_with_an_etag_and_repeats_it_idempotently(audited, api_user):
    me, client = api_user(MEMORY)
    case = audited["first"]
    detail = reverse("audit-api:case-detail", args=[case.pk])
    read = client.get(detail)
    assert read.status_code == 200 and read.json()["status"] == "review"
    assert {f["name"] for f in read.json()["fields"]} >= {"context", "content_full"}
    url = reverse("audit-api:case-decide", args=[case.pk])
    no_reason = post(client, url, {"decision": "false_positive"}, etag=read["ETag"])
    assert no_reason.status_code == 400
    assert no_reason.json()["fields"]["reason"] == ["Say why the flag is a false positive."]
    made = post(client, url, {"decision": "confirmed"}, etag=read["ETag"])
    assert made.status_code == 201 and made.json()["status"] == "senior"
    case.refresh_from_db()
    assert case.status == "senior" and case.reviewer == me
    stale = post(client, url, {"decision": "confirmed"}, etag=read["ETag"])
    assert stale.status_code == 412
    again = post(client, url, {"decision": "confirmed"})
    assert again.status_code == 200 and again.json() == made.json()
    other = post(client, url, {"decision": "false_positive", "reason": "Fine after all."})
    assert other.status_code == 409 and "not awaiting review" in other.json()["detail"]
    _, senior = api_user(SENIOR)
    assert post(senior, url, {"decision": "confirmed"}).status_code == 403


def test_a_false_positive_takes_effect_once_the_team_agreed(audited, api_user, settings):
    settings.HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM = 2
    case = audited["second"]
    url = reverse("audit-api:case-decide", args=[case.pk])
    body = {"decision": "false_positive", "reason": "Within the guided range."}
    _, one = api_user(MEMORY)
    _, two = api_user(MEMORY)
    first = post(one, url, body)
    assert first.status_code == 201 and first.json()["agreements_needed"] == 1
    assert post(one, url, body).status_code == 200
    assert post(one, url, {**body, "reason": "Another reason."}).status_code == 409
    assert OverrideAgreement.objects.filter(case=case).count() == 1
    second = post(two, url, body)
    assert second.status_code == 201 and second.json()["status"] == "false_positive"
    case.refresh_from_db()
    assert case.status == "false_positive"


def test_the_senior_previews_then_saves_an_edit_that_passes_the_reaudit(audited, api_user):
    case = audited["first"]
    MemoryCase.objects.filter(pk=case.pk).update(status=MemoryCase.Status.SENIOR)
    _, client = api_user(SENIOR)
    _, reviewer = api_user(MEMORY)
    detail = client.get(reverse("audit-api:case-detail", args=[case.pk]))
    fields = {f["name"]: f["text"] for f in detail.json()["fields"]}
    url = reverse("audit-api:case-edit", args=[case.pk])
    edit = {**fields, "content_full": CLEAN, "note": "Removed the hindsight."}
    assert post(reviewer, url, edit).status_code == 403
    preview = post(client, url, {**edit, "preview": True}, etag=detail["ETag"])
    assert preview.status_code == 200 and [d["field"] for d in preview.json()] == ["content_full"]
    case.memory.refresh_from_db()
    assert case.memory.content_full != CLEAN  # nothing saved
    empty = post(client, url, {**edit, "content_summary": ""})
    assert empty.status_code == 400 and "content_summary" in empty.json()["fields"]
    saved = post(client, url, edit, etag=detail["ETag"])
    assert saved.status_code == 201, saved.content
    assert saved.json()["accepted"] is True and saved.json()["case"]["status"] == "revised"
    case.memory.refresh_from_db()
    assert case.memory.content_full == CLEAN
    assert post(client, url, edit, etag=detail["ETag"]).status_code == 412
    again = post(client, url, edit)
    assert (
        again.status_code == 400
        and "only confirmed defects are edited" in again.json()["detail"][0]
    )


def test_the_admin_starts_finalizes_and_classifies_runs(audited, api_user):
    _, admin = api_user(ADMIN)
    _, reviewer = api_user(MEMORY)
    run = audited["run"]
    finalize = reverse("audit-api:run-finalize", args=[run.pk])
    assert post(reviewer, finalize, {}).status_code == 403
    open_cases = post(admin, finalize, {})
    assert open_cases.status_code == 400 and "still open" in open_cases.json()["detail"][0]
    MemoryCase.objects.filter(run=run).update(status=MemoryCase.Status.FALSE_POSITIVE)
    done = post(admin, finalize, {})
    assert done.status_code == 201 and done.json()["finalized_at"]
    assert post(admin, finalize, {}).status_code == 200

    classify = reverse("audit-api:run-classify", args=[run.pk])
    unnamed = post(admin, classify, {"criterion": "six"})
    assert unnamed.status_code == 400 and unnamed.json()["detail"] == ["Choose a criterion, 1-6."]
    unconfigured = post(admin, classify, {"criterion": 6})
    assert (
        unconfigured.status_code == 400
        and "No classifier model" in unconfigured.json()["detail"][0]
    )

    runs = reverse("audit-api:run-list")
    unknown = post(admin, runs, {"characters": ["CHAR_99"]})
    assert unknown.status_code == 400 and "characters" in unknown.json()["fields"]
    started = post(admin, runs, {"characters": ["CHAR_01"], "note": "again"})
    assert started.status_code == 202 and started.json()["status"] == "pending"
    assert AuditRun.objects.get(pk=started.json()["id"]).character_keys == ["CHAR_01"]
    busy = post(admin, runs, {})
    assert busy.status_code == 400 and "wait for it to finish" in busy.json()["detail"][0]
    listing = admin.get(runs, {"status": "pending"}).json()
    assert listing["count"] == 1 and listing["results"][0]["note"] == "again"
    assert reviewer.get(runs).status_code == 403


def test_the_admin_saves_settings_versions(api_user):
    _, admin = api_user(ADMIN)
    _, senior = api_user(SENIOR)
    url = reverse("audit-api:settings")
    assert post(senior, url, {"note": "x"}).status_code == 403
    unsaid = post(admin, url, {"max_repair_attempts": 4})
    assert unsaid.status_code == 400 and "note" in unsaid.json()["fields"]
    crossed = post(admin, url, {"context_words_min": 90, "context_words_max": 10, "note": "x"})
    assert crossed.status_code == 400
    assert crossed.json()["detail"] == ["The context's minimum word count is above its maximum."]
    bad = post(admin, url, {"enabled_criteria": [9], "note": "x"})
    assert bad.status_code == 400 and "enabled_criteria" in bad.json()["fields"]
    made = post(
        admin,
        url,
        {
            "max_repair_attempts": 4,
            "age_windows": [{"key": "child", "first_age": 6, "last_age": 11}],
            "note": "One more attempt.",
        },
    )
    assert made.status_code == 201, made.content
    version = AuditSettings.objects.get(number=made.json()["number"])
    assert version.max_repair_attempts == 4 and version.note == "One more attempt."
    assert version.age_windows == [{"key": "child", "first_age": 6, "last_age": 11}]
    assert admin.get(url).json()[0]["values"]["max_repair_attempts"] == 4


@pytest.mark.parametrize(
    "body, field",
    [
        ({"narrator_labels": "not an object"}, "narrator_labels"),
        ({"omniscient_patterns": "one string"}, "omniscient_patterns"),
        ({"age_windows": ["child 6-11"]}, "age_windows"),
        ({"age_windows": [{"key": "child"}]}, "age_windows"),
    ],
)
def test_a_settings_body_of_the_wrong_shape_is_a_400_naming_the_field(api_user, body, field):
    """Schemathesis found these answered 500: the values were read before any check."""
    _, admin = api_user(ADMIN)
    before = AuditSettings.objects.count()
    refused = post(admin, reverse("audit-api:settings"), {**body, "note": "x"})
    assert refused.status_code == 400, refused.content
    assert field in refused.json().get("fields", refused.json())
    assert AuditSettings.objects.count() == before


def test_a_setting_beyond_its_column_is_a_400(api_user):
    """Schemathesis found a child-age limit of 2**40 answered 500 (integer out of range)."""
    _, admin = api_user(ADMIN)
    before = AuditSettings.objects.count()
    refused = post(
        admin, reverse("audit-api:settings"), {"adult_evaluation_max_age": 2**40, "note": "x"}
    )
    assert refused.status_code == 400, refused.content
    assert "must be between 0 and 32767" in " ".join(refused.json()["detail"])
    assert AuditSettings.objects.count() == before
