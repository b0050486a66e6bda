"""A judge run's budget (issue #36): once the recorded cost of its calls reaches the
budget it was launched with, the run stops at budget saying why, the calls not yet sent
wait, and a resume with a higher budget finishes it with one verdict per call, nothing
lost or sent twice. Through a real Celery worker over Redis, the judge the fake provider
on loopback, priced through the worker's own environment."""

import time
from decimal import Decimal

import pytest

from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun, JudgeVerdict
from adjudication.judging.services.runs import (
    JudgeRunError,
    judge_run_create,
    judge_run_resume,
    judge_run_start,
)
from core.providers import clear_client_cache
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.generation.helpers import family_settings, worker_env
from tests.judging.helpers import judged_pairs

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Status = JudgeRun.Status


@pytest.fixture
def server():
    with FakeProviderServer(responder=DemoResponder(seed=0)) as server:
        yield server


@pytest.fixture
def providers(settings, server):
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=2.0, max_retries=1)
    yield
    clear_client_cache()


def priced_env(server) -> dict:
    # Prices high enough that one verdict costs more than a cent.
    env = worker_env(server, timeout=2.0, max_retries=1)
    env.update(HEARTBENCH_GPT_PRICE_IN="3000", HEARTBENCH_GPT_PRICE_OUT="15000")
    return env


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        statuses = list(run.calls.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited for {what}: {run.status} {statuses}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def assert_nothing_lost_or_twice(run):
    """Every call has its one verdict from its one recorded model call, or waits unsent."""
    for call in run.calls.all():
        records = JudgeCallRecord.objects.filter(call=call).count()
        verdicts = JudgeVerdict.objects.filter(call=call).count()
        if call.status == JudgeCall.Status.SUCCEEDED:
            assert (records, verdicts, call.attempts) == (1, 1, 1), call.pk
        else:
            assert call.status == JudgeCall.Status.PENDING, (call.pk, call.status)
            assert (records, verdicts, call.attempts) == (0, 0, 0), call.pk


def test_a_judge_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory, providers, server
):
    worker = celery_worker_factory(extra_env=priced_env(server), name="judge-budget")
    pairs, people_ = judged_pairs(3)
    run = judge_run_create(
        user=people_["admin"], name="", provider_family="gpt", seed=5, budget_usd="0.01"
    )
    assert run.budget_usd == Decimal("0.01") and run.calls.count() == 3

    judge_run_start(run_id=run.pk)
    wait_for(
        run, lambda r: r.status == Status.STOPPED_AT_BUDGET, worker, "the run to stop at its budget"
    )
    time.sleep(1.0)  # the held calls' tasks have all been taken up: none calls late
    run.refresh_from_db()

    assert sum(c.cost_usd for c in run.calls.all()) >= Decimal("0.01")
    assert "budget of $0.01" in run.stop_reason
    # One verdict costs more than the budget: the solo worker sent one, then held the rest.
    assert run.calls.filter(status=JudgeCall.Status.SUCCEEDED).count() == 1
    assert run.calls.filter(status=JudgeCall.Status.PENDING).count() == 2
    assert len(server.requests) == 1
    assert_nothing_lost_or_twice(run)

    with pytest.raises(JudgeRunError, match="would stop again"):
        judge_run_resume(run_id=run.pk, budget_usd="0.01")

    judge_run_resume(run_id=run.pk, budget_usd="100000")
    wait_for(run, lambda r: r.status == Status.FINISHED, worker, "the resumed run to finish")

    assert run.budget_usd == Decimal("100000.00") and run.stop_reason == ""
    assert JudgeVerdict.objects.filter(call__run=run).count() == 3
    assert len(server.requests) == 3
    assert_nothing_lost_or_twice(run)
