"""Costs on the judge-run pages (issue #36): the launch form takes a budget (a bad one
refused, saying why, with no run created) beside the estimate; a run stopped at its
budget says why on its page, whose resume form (posting to the run's one resume URL)
refuses a budget already spent and otherwise sends the waiting calls."""

from decimal import Decimal

import pytest
from django.urls import reverse

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.services.calls import judge_call_execute
from adjudication.judging.services.runs import judge_run_create, judge_run_start
from core.providers import clear_client_cache
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.generation.helpers import family_settings
from tests.judging.helpers import judged_pairs

pytestmark = pytest.mark.django_db

Status = JudgeRun.Status


@pytest.fixture
def server(settings):
    with FakeProviderServer(responder=DemoResponder(seed=0)) as server:
        families = family_settings(server, timeout=2.0)
        for setup in families.values():
            setup.update(price_in="3000", price_out="15000")
        settings.HEARTBENCH_GENERATION_FAMILIES = families
        yield server
        clear_client_cache()


@pytest.fixture
def judged():
    return judged_pairs(3)


@pytest.fixture
def admin(client, judged):
    client.force_login(judged[1]["admin"])
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


def launch_data(**extra) -> dict:
    return {
        "provider_family": "gpt",
        "pair_scope": "all",
        "orders_per_pair": "1",
        "seed": "7",
        "launch": "Launch judge run",
        **extra,
    }


def test_the_launch_form_takes_a_budget_beside_the_estimate(admin, server):
    body = text(admin.get(reverse("judging:launch")))
    assert 'data-testid="cost-estimate"' in body and 'name="budget_usd"' in body

    response = admin.post(reverse("judging:launch"), launch_data(budget_usd="2.50"))

    run = JudgeRun.objects.get()
    assert response.status_code == 302 and run.budget_usd == Decimal("2.50")
    body = text(admin.get(reverse("judging:run", args=[run.pk])))
    assert 'data-testid="run-budget">Budget: $2.50<' in body


@pytest.mark.parametrize(
    ("budget", "message"),
    [("-3", "greater than or equal to 0.01"), ("ten dollars", "Enter a number.")],
)
def test_a_budget_that_is_not_an_amount_is_refused(admin, server, budget, message):
    response = admin.post(reverse("judging:launch"), launch_data(budget_usd=budget))

    assert response.status_code == 200
    assert message in text(response)
    assert not JudgeRun.objects.exists() and not JudgeCall.objects.exists()


def stopped_run(judged):
    """A run whose first verdict spent its budget: the second call was held."""
    run = judge_run_create(
        user=judged[1]["admin"], name="", provider_family="gpt", seed=3, budget_usd="0.01"
    )
    judge_run_start(run_id=run.pk)  # queued on commit: the test sends the calls itself
    first, second, _ = run.calls.order_by("pk")
    judge_call_execute(call_id=first.pk)
    judge_call_execute(call_id=second.pk)
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET
    return run


def test_a_stopped_run_says_why_and_offers_a_resume(admin, server, judged):
    run = stopped_run(judged)
    body = text(admin.get(reverse("judging:run", args=[run.pk])))

    assert "Stopped at its budget of $0.01" in body
    assert f'action="{reverse("judging:resume", args=[run.pk])}"' in body
    assert 'name="budget_usd"' in body and 'id="run-resume"' not in body
    assert 'hx-trigger="every 1s"' not in body
    assert len(server.requests) == 1


def test_a_resume_below_the_cost_so_far_is_refused_on_the_page(admin, server, judged):
    run = stopped_run(judged)
    response = admin.post(reverse("judging:resume", args=[run.pk]), {"budget_usd": "0.01"})

    assert response.status_code == 200
    assert "would stop again at once" in text(response)
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")


def test_a_resume_without_a_budget_sends_the_waiting_calls(
    admin, server, judged, eager_celery, django_capture_on_commit_callbacks
):
    run = stopped_run(judged)

    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(reverse("judging:resume", args=[run.pk]), {"budget_usd": ""})

    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == Status.FINISHED and run.budget_usd is None and not run.stop_reason
    assert JudgeVerdict.objects.filter(call__run=run).count() == 3 == len(server.requests)
    assert {c.attempts for c in run.calls.all()} == {1}
