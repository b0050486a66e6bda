"""An audit run on the one LLM-run framework (issue #33): one unit per character, and
start, cancel, resume and retry through ``RunFlow``. A long audit (11,000 memories) can
be stopped and taken up again without auditing a character twice, from the run page's
buttons (``core/llm_run_actions.html``) as from the services."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import AuditError, AuditRun, AuditUnit, MemoryCase
from audit.memory_quality.services.runs import (
    audit_run_cancel,
    audit_run_execute,
    audit_run_resume,
    audit_run_retry,
    audit_run_start,
)
from core.llm_runs.models import RunStatus
from core.roles import Role
from tests.factories import CharacterFactory

from .conftest import DRIFT, hand_written

pytestmark = pytest.mark.django_db
Unit = AuditUnit.Status


def two_characters():
    """Two characters, each with one memory the patterns flag."""
    for key in ("CHAR_01", "CHAR_02"):
        hand_written(CharacterFactory(key=key), content_full=DRIFT, event_age=20)


def statuses(run) -> dict[str, str]:
    return {u.character.key: u.status for u in run.units.select_related("character")}


def test_a_run_has_a_unit_per_character_and_finishes_them_all(admin_user):
    two_characters()
    run = audit_run_start(created_by=admin_user, character_keys=["CHAR_02"])
    assert run.status == RunStatus.PENDING and statuses(run) == {"CHAR_02": Unit.PENDING}
    run = audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    assert run.status == RunStatus.FINISHED and run.started_at and run.finished_at
    assert statuses(run) == {"CHAR_02": Unit.DONE}
    assert run.units.get().memory_count == 1 and run.memory_done == run.memory_total == 1
    assert run.summary["per_character"] == {"CHAR_02": 1}
    assert run.summary["length_report"]["over_limit"] == 0
    assert [c.character.key for c in run.cases.all()] == ["CHAR_02"]


def test_cancel_stops_the_characters_not_yet_audited_and_resume_audits_them(
    admin_user, eager_celery, django_capture_on_commit_callbacks
):
    two_characters()
    run = audit_run_start(created_by=admin_user)
    run = audit_run_cancel(run_id=run.pk, user=admin_user)
    assert run.status == RunStatus.CANCELLED
    assert statuses(run) == {"CHAR_01": Unit.CANCELLED, "CHAR_02": Unit.CANCELLED}
    # The worker that picks the run up afterwards leaves it alone.
    assert audit_run_execute(run_id=run.pk).status == RunStatus.CANCELLED
    assert not run.cases.exists()
    with pytest.raises(AuditError, match="only a pending or running run can be cancelled"):
        audit_run_cancel(run_id=run.pk, user=admin_user)

    with django_capture_on_commit_callbacks(execute=True):
        audit_run_resume(run_id=run.pk, user=admin_user)
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    assert statuses(run) == {"CHAR_01": Unit.DONE, "CHAR_02": Unit.DONE}
    assert run.cases.count() == 2
    with pytest.raises(AuditError, match="only a cancelled run can be resumed"):
        audit_run_resume(run_id=run.pk, user=admin_user)


def test_a_redelivered_run_goes_on_without_auditing_a_character_twice(admin_user):
    """A worker killed in the middle of a character leaves its unit running and the run
    running; the redelivered task audits that character and the ones after it once."""
    two_characters()
    run = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    first = run.units.get(character__key="CHAR_01")
    case_ids = set(run.cases.values_list("pk", flat=True))
    # As a kill after the first character left it: CHAR_02 was being audited.
    run.cases.filter(character__key="CHAR_02").delete()
    run.units.filter(character__key="CHAR_02").update(status=Unit.RUNNING)
    AuditRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, finished_at=None)

    run = audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    assert run.status == RunStatus.FINISHED
    assert statuses(run) == {"CHAR_01": Unit.DONE, "CHAR_02": Unit.DONE}
    assert run.cases.count() == 2 and len(case_ids & set(run.cases.values_list("pk", flat=True)))
    assert run.units.get(character__key="CHAR_01").attempts == first.attempts == 1
    assert run.units.get(character__key="CHAR_02").attempts == 2


def test_retry_audits_the_failed_characters_again(
    admin_user, eager_celery, django_capture_on_commit_callbacks
):
    two_characters()
    run = audit_run_start(created_by=admin_user)
    # A run whose CHAR_02 failed (as migration 0007 leaves an old failed run).
    run.units.filter(character__key="CHAR_02").update(
        status=Unit.FAILED, error_kind="MemoryError", error_message="out of memory"
    )
    run = audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    assert run.status == RunStatus.FINISHED_WITH_FAILURES
    assert "CHAR_02: MemoryError: out of memory" in run.error
    assert [c.character.key for c in run.cases.all()] == ["CHAR_01"]

    with django_capture_on_commit_callbacks(execute=True):
        audit_run_retry(run_id=run.pk, user=admin_user)
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED and not run.error
    assert statuses(run) == {"CHAR_01": Unit.DONE, "CHAR_02": Unit.DONE}
    assert sorted(c.character.key for c in run.cases.all()) == ["CHAR_01", "CHAR_02"]
    with pytest.raises(AuditError, match="only a run with failed characters can retry them"):
        audit_run_retry(run_id=run.pk, user=admin_user)


def test_a_cancelling_run_holds_the_audit_until_it_has_stopped(admin_user):
    two_characters()
    run = audit_run_start(created_by=admin_user)
    AuditRun.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLING)
    with pytest.raises(AuditError, match="is still cancelling; wait for it to finish"):
        audit_run_start(created_by=admin_user)


def test_the_run_page_offers_cancel_then_resume_and_they_work(
    admin_user, person, eager_celery, django_capture_on_commit_callbacks
):
    two_characters()
    run = audit_run_start(created_by=admin_user)
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("audit:run-detail", args=[run.pk])).content.decode()
    assert 'data-run-action="cancel"' in page and 'id="run-cancel"' in page
    assert 'data-status="pending"' in page and 'data-run-action="resume"' not in page

    answer = client.post(reverse("audit:run-cancel", args=[run.pk]), follow=True)
    page = answer.content.decode()
    assert f"Audit run {run.pk} is cancelling" in page
    assert 'data-status="cancelled"' in page and 'data-run-action="resume"' in page

    # htmx: the progress section comes back with the refusal in it.
    refused = client.post(reverse("audit:run-cancel", args=[run.pk]), HTTP_HX_REQUEST="true")
    assert "only a pending or running run can be cancelled" in refused.content.decode()
    assert 'id="audit-progress"' in refused.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("audit:run-resume", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED
    page = client.get(reverse("audit:run-detail", args=[run.pk])).content.decode()
    assert "Characters: 2 of 2 audited" in page and "data-run-action" not in page

    reviewer = Client()
    reviewer.force_login(person(Role.MEMORY_REVIEWER))
    assert reviewer.post(reverse("audit:run-cancel", args=[run.pk])).status_code == 403
    assert client.post(reverse("audit:run-retry", args=[run.pk + 99])).status_code == 404


def test_the_run_page_offers_retry_for_failed_characters(admin_user):
    two_characters()
    run = audit_run_start(created_by=admin_user)
    run.units.filter(character__key="CHAR_01").update(
        status=Unit.FAILED, error_kind="ValueError", error_message="bad window"
    )
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    client = Client()
    client.force_login(admin_user)
    page = client.get(reverse("audit:run-detail", args=[run.pk])).content.decode()
    assert 'data-run-action="retry"' in page and "Retry the failed characters" in page
    assert "ValueError: bad window" in page and "1 failed" in page
    assert MemoryCase.objects.filter(run=run).count() == 1


def test_a_script_cancels_and_resumes_a_run_through_the_api(
    admin_user, eager_celery, django_capture_on_commit_callbacks
):
    from tests.api.conftest import token_client

    two_characters()
    api = token_client(admin_user)
    with django_capture_on_commit_callbacks(execute=False):
        started = api.post(reverse("audit-api:run-list"), {"note": "Full pass."}, format="json")
    assert started.status_code == 202 and started.json()["status"] == "pending"
    run_id = started.json()["id"]

    cancelled = api.post(reverse("audit-api:run-cancel", args=[run_id]))
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = api.post(reverse("audit-api:run-cancel", args=[run_id]))
    assert again.status_code == 400
    assert again.json()["detail"] == [
        f"Audit run {run_id} is cancelled; only a pending or running run can be cancelled."
    ]
    with django_capture_on_commit_callbacks(execute=True):
        resumed = api.post(reverse("audit-api:run-resume", args=[run_id]))
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"
    assert api.get(reverse("audit-api:run-detail", args=[run_id])).json()["status"] == "finished"
    assert api.post(reverse("audit-api:run-retry", args=[run_id + 99])).status_code == 404
