"""An evaluation run's budget (issue #36) through a real Celery worker over Redis, against
the fake provider on loopback: once the run's recorded cost reaches its budget the worker
takes up no further item, the run stops at budget saying why, what was answered is kept,
and a resume (refused while the budget would stop it again) asks the rest, each item
once. The lab's monthly cap for the model's provider stops a run the same way."""

import time
from decimal import Decimal

import pytest

from core.llm_runs.models import MonthlySpendingCap
from evaluation import services
from evaluation.models import EvaluationCall, EvaluationError, EvaluationRun, Setting
from llm.testing.fake_server import FakeProviderServer
from tests.evaluation.conftest import build_corpus
from tests.factories import UserFactory

from .test_cost_estimate_evaluation import answer, priced_env

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Status = EvaluationRun.Status
# High enough that one item (some 300 tokens in, 150 out) costs more than a dollar.
PRICES = {"price_in": Decimal("3000"), "price_out": Decimal("15000")}


@pytest.fixture
def server(monkeypatch):
    with FakeProviderServer(responder=answer) as server:
        for name, value in priced_env(server, **PRICES).items():
            monkeypatch.setenv(name, value)  # the web side: the model is configured
        yield server


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        statuses = list(run.predictions.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {statuses}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def settled(run) -> bool:
    """Stopped, and no item held by a worker any more."""
    return (
        run.status == Status.STOPPED_AT_BUDGET
        and not run.predictions.filter(status="running").exists()
    )


def assert_nothing_lost_or_twice(run, server):
    """Every item is answered once (one call, one response) or waits with no call made;
    the provider saw exactly the calls recorded."""
    for pred in run.predictions.all():
        calls = EvaluationCall.objects.filter(prediction=pred).count()
        if pred.status == "answered":
            assert (calls, pred.attempts, pred.choice) == (1, 1, "A"), pred.pk
        else:
            assert pred.status == "pending", (pred.pk, pred.status)
            assert (calls, pred.attempts, pred.choice) == (0, 0, ""), pred.pk
    recorded = EvaluationCall.objects.filter(prediction__run=run).count()
    assert len(server.requests) == recorded


def launch(budget_usd):
    run = services.evaluation_run_create(
        created_by=UserFactory(),
        provider_key="fake",
        setting=Setting.NO_RETRIEVAL,
        budget_usd=budget_usd,
    )
    services.evaluation_run_start(run_id=run.pk)  # autocommit: queued at once
    return run


def test_an_evaluation_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory, server
):
    worker = celery_worker_factory(extra_env=priced_env(server, **PRICES), name="eval")
    build_corpus()
    run = launch("1.00")
    assert run.budget_usd == Decimal("1.00")

    wait_for(run, settled, worker, "the run to stop at its budget")

    spent = sum(p.cost_usd for p in run.predictions.all())
    assert spent >= Decimal("1.00")
    # One item costs more than the budget: the solo worker asked one, then stopped.
    assert run.predictions.filter(status="answered").count() == 1
    assert run.predictions.filter(status="pending").count() == 7
    assert "budget of $1.00" in run.stop_reason
    assert_nothing_lost_or_twice(run, server)

    # A resume that would stop again at once is refused, saying why, and changes nothing.
    with pytest.raises(EvaluationError, match="would stop again"):
        services.evaluation_run_resume(run_id=run.pk, budget_usd="1.50")
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("1.00")

    assert services.evaluation_run_resume(run_id=run.pk, budget_usd=None) == 7
    wait_for(run, lambda r: r.status == Status.FINISHED, worker, "the resumed run to finish")

    assert run.budget_usd is None and run.stop_reason == ""
    assert run.predictions.filter(status="answered").count() == 8
    assert_nothing_lost_or_twice(run, server)


def test_the_monthly_cap_of_the_models_provider_stops_a_run(celery_worker_factory, server):
    worker = celery_worker_factory(extra_env=priced_env(server, **PRICES), name="eval")
    build_corpus()
    MonthlySpendingCap.objects.create(provider="openai", cap_usd=Decimal("1.00"))
    run = launch(None)

    wait_for(run, settled, worker, "the run to stop at the monthly cap")

    assert "monthly cap for openai" in run.stop_reason
    assert run.predictions.filter(status="answered").count() == 1
    assert_nothing_lost_or_twice(run, server)
    with pytest.raises(EvaluationError, match="monthly cap for openai"):
        services.evaluation_run_resume(run_id=run.pk)

    MonthlySpendingCap.objects.update(cap_usd=Decimal("100000"))
    services.evaluation_run_resume(run_id=run.pk)
    wait_for(run, lambda r: r.status == Status.FINISHED, worker, "the resumed run to finish")
    assert run.predictions.filter(status="answered").count() == 8
    assert_nothing_lost_or_twice(run, server)
