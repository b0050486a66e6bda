"""One rule for the budget of a resume through the API, whatever the stage (as the
evaluation API already said): a run stopped at a spending limit resumes with the
``budget_usd`` sent, and a budget left out, null or blank means no budget, never the old
one (which would stop the run again at once). Memory generation's API now takes the
budget; the memory audit's no longer keeps the old budget when it is left out."""

from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.memory_generation.models import MemoryRun
from audit.memory_quality.models import AuditRun
from core.roles import Role
from tests.factories import UserFactory

from .test_budget_pages_audit import server, stopped_run  # noqa: F401
from .test_cost_estimate_memory_generation import stopped_run as stopped_memory_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client):
    client.force_login(UserFactory(roles=[Role.ADMIN]))
    return client


def test_an_audit_run_resumed_without_a_budget_runs_with_none(api, server, settings):  # noqa: F811
    run = stopped_run(settings, UserFactory(roles=[Role.ADMIN]))
    response = api.post(
        reverse("audit-api:run-resume", args=[run.pk]), {}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    run.refresh_from_db()
    assert run.budget_usd is None and run.status != AuditRun.Status.STOPPED_AT_BUDGET


def test_an_audit_run_resumed_with_a_spent_budget_is_refused(api, server, settings):  # noqa: F811
    run = stopped_run(settings, UserFactory(roles=[Role.ADMIN]))
    response = api.post(
        reverse("audit-api:run-resume", args=[run.pk]),
        {"budget_usd": "0.01"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "would stop again" in " ".join(response.json()["detail"])
    run.refresh_from_db()
    assert run.status == AuditRun.Status.STOPPED_AT_BUDGET


@pytest.mark.parametrize(("sent", "kept"), [({}, None), ({"budget_usd": "500"}, Decimal("500"))])
def test_a_memory_run_resumes_through_the_api_with_the_budget_sent(
    api, memory_provider, django_capture_on_commit_callbacks, sent, kept
):
    run, _waiting = stopped_memory_run(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = api.post(
            reverse("memory-generation-api:run-resume", args=[run.pk]),
            sent,
            content_type="application/json",
        )
    assert response.status_code == 200, response.content
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.RUNNING and run.budget_usd == kept
    assert len(queued) == 1  # the waiting batch is sent again


def test_a_memory_run_resumed_with_a_spent_budget_is_refused(
    api, memory_provider, django_capture_on_commit_callbacks
):
    run, _waiting = stopped_memory_run(django_capture_on_commit_callbacks)
    response = api.post(
        reverse("memory-generation-api:run-resume", args=[run.pk]),
        {"budget_usd": "0.02"},
        content_type="application/json",
    )
    assert response.status_code == 409
    assert "would stop again" in response.json()["detail"]
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.02")
