"""A run launched from a page lands on its own page before a worker has taken it up.
While it waits ("Pending") the page must keep asking for news; a page that polled only
once the run was running showed "Pending" until someone reloaded it (a busy worker made
the corpus walk-through in Chromium wait for a status that never came)."""

import pytest
from django.urls import reverse

from adjudication.judging.models import JudgeRun
from adjudication.mcq.models import McqScreeningRun
from audit.memory_quality.models import AuditRun
from audit.memory_quality.services.configuration import audit_settings_current
from core.roles import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _audit_run():
    return AuditRun.objects.create(settings_version=audit_settings_current()), "audit:run-detail"


def _judge_run():
    run = JudgeRun.objects.create(
        name="waiting", judge_family="claude", provider_family="gpt", model="m",
        orders_per_pair=1, prompt_version="v1",
    )  # fmt: skip
    return run, "judging:run"


def _screening_run():
    return McqScreeningRun.objects.create(note="waiting"), "mcq:screening-run"


@pytest.mark.parametrize("make", [_audit_run, _judge_run, _screening_run], ids=lambda f: f.__name__)
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_a_pending_run_page_keeps_polling_until_a_worker_takes_it(client, make, htmx):
    client.force_login(UserFactory(roles=[Role.ADMIN]))
    run, name = make()
    assert run.status == "pending"
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    body = client.get(reverse(name, args=[run.pk]), **headers).content.decode()
    assert 'data-polling="true"' in body and 'hx-trigger="every' in body

    type(run).objects.filter(pk=run.pk).update(status="finished")
    body = client.get(reverse(name, args=[run.pk]), **headers).content.decode()
    assert 'data-polling="false"' in body and 'hx-trigger="every' not in body
