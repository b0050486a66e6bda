"""Costs on the memory audit's pages (issue #36): the launch form shows the estimate of
the repair calls and takes a budget (a bad one refused, saying why, with no run
created); a run stopped at its budget says why on its page, whose resume form (posting
to the run's one resume URL) refuses a budget already spent and otherwise makes the held
repairs."""

from decimal import Decimal

import pytest
from django.urls import reverse

from audit.memory_quality.models import AuditCall, AuditRun, MemoryCase
from audit.memory_quality.services.repair_loop import repair_attempt_run
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory

from .audit_helpers import answer, configure, flagged_corpus

pytestmark = pytest.mark.django_db

Status = AuditRun.Status


@pytest.fixture
def server(settings):
    with FakeProviderServer(responder=answer) as server:
        configure(settings, server)
        yield server


@pytest.fixture
def admin_user():
    return UserFactory(roles=[Role.ADMIN])


@pytest.fixture
def admin(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def text(response) -> str:
    return response.content.decode()


def test_the_launch_form_shows_the_estimate_of_the_repairs(admin, server):
    flagged_corpus(["CHAR_01", "CHAR_02"])
    body = text(admin.get(reverse("audit:run-list")))

    estimate = body[body.index('data-testid="cost-estimate"') :]
    assert "Repair model (openai)" in estimate
    assert 'data-testid="cost-calls">2<' in estimate  # one flagged memory a character
    assert "±30%" in estimate and "price not configured" not in estimate
    assert 'name="budget_usd"' in body


def test_a_run_launched_with_a_budget_shows_it(admin, server):
    flagged_corpus(["CHAR_01"])
    response = admin.post(reverse("audit:run-list"), {"note": "", "budget_usd": "2.50"})

    run = AuditRun.objects.get()
    assert response.status_code == 302 and run.budget_usd == Decimal("2.50")
    body = text(admin.get(reverse("audit:run-detail", args=[run.pk])))
    assert 'data-testid="run-budget">Budget: $2.50<' in body


@pytest.mark.parametrize(
    ("budget", "message"),
    [("-3", "greater than or equal to 0.01"), ("ten dollars", "Enter a number.")],
)
def test_a_budget_that_is_not_an_amount_is_refused(admin, server, budget, message):
    flagged_corpus(["CHAR_01"])
    response = admin.post(reverse("audit:run-list"), {"note": "", "budget_usd": budget})

    assert response.status_code == 200
    assert message in text(response)
    assert not AuditRun.objects.exists()


def stopped_run(settings, user):
    """A run whose first repair spent its budget: the second repair was held."""
    settings.HEARTBENCH_AUDIT_REPAIR_PRICE_IN = "3000"
    flagged_corpus(["CHAR_01", "CHAR_02", "CHAR_03"], clean=False)
    run = audit_run_start(created_by=user, budget_usd="0.01")
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    first, second, third = run.cases.order_by("pk")
    assert repair_attempt_run(case_id=first.pk, dispatch=False).passed
    assert repair_attempt_run(case_id=second.pk, dispatch=False) is None
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET
    return run


def test_a_stopped_run_says_why_and_offers_a_resume(admin, admin_user, server, settings):
    run = stopped_run(settings, admin_user)
    body = text(admin.get(reverse("audit:run-detail", args=[run.pk])))

    assert "Stopped at its budget of $0.01" in body
    assert 'data-testid="run-stop-reason"' in body
    assert f'action="{reverse("audit:run-resume", args=[run.pk])}"' in body
    assert 'name="budget_usd"' in body and 'id="run-resume"' not in body
    assert 'hx-trigger="every 1s"' not in body  # nothing runs until it is resumed
    assert len(server.requests) == 1


def test_a_resume_below_the_cost_so_far_is_refused_on_the_page(admin, admin_user, server, settings):
    run = stopped_run(settings, admin_user)
    response = admin.post(reverse("audit:run-resume", args=[run.pk]), {"budget_usd": "0.01"})

    assert response.status_code == 200
    assert "would stop again at once" in text(response)
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")


def test_a_resume_without_a_budget_makes_the_held_repairs(
    admin, admin_user, server, settings, eager_celery, django_capture_on_commit_callbacks
):
    run = stopped_run(settings, admin_user)

    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(reverse("audit:run-resume", args=[run.pk]), {"budget_usd": ""})

    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == Status.FINISHED and run.budget_usd is None and not run.stop_reason
    assert run.cases.filter(status=MemoryCase.Status.REPAIRED).count() == 3
    assert AuditCall.objects.filter(run=run).count() == len(server.requests) == 3
    assert {c.attempts.count() for c in run.cases.all()} == {1}
