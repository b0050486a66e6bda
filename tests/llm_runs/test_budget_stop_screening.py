"""An MCQ screening run's budget (issue #36) through a real Celery worker over Redis, the
judge being the fake provider on loopback: once the run's recorded cost reaches its
budget the worker takes up no further screening, the run stops at budget saying why, the
screened item keeps its verdict and the others keep awaiting screening; a resume
(refused while the budget would stop it again) screens the rest, each item once."""

import time
from decimal import Decimal

import pytest

from adjudication.mcq.models import McqError, McqItem, McqScreeningCall, McqScreeningRun
from adjudication.mcq.services import screening_runs
from core.roles import Role
from tests.mcq.conftest import (  # noqa: F401
    fake_server,
    judge,
    person,
    references,
    role_groups,
    scenario,
)
from tests.mcq.test_worker import honest_judge

from .test_cost_estimate_screening import assemble

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Run = McqScreeningRun.Status


def worker_env(server) -> dict:
    return {
        "HEARTBENCH_MCQ_SCREENER_KIND": "anthropic",
        "HEARTBENCH_MCQ_SCREENER_BASE_URL": server.base_url("anthropic"),
        "HEARTBENCH_MCQ_SCREENER_MODEL": "fake-judge",
        "HEARTBENCH_MCQ_SCREENER_API_KEY": "test-key",
        "HEARTBENCH_MCQ_SCREENER_MAX_RETRIES": "1",
        # One screening (some 3,000 tokens in) costs more than a dollar.
        "HEARTBENCH_MCQ_SCREENER_PRICE_IN": "3000",
        "HEARTBENCH_MCQ_SCREENER_PRICE_OUT": "15000",
    }


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        statuses = list(run.screenings.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {statuses}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def settled(run) -> bool:
    return (
        run.status == Run.STOPPED_AT_BUDGET and not run.screenings.filter(status="running").exists()
    )


def assert_nothing_lost_or_twice(run, server):
    """Each screening is done once (one passing call, its item final) or waits with no
    call made (its item still awaiting screening); the judge saw exactly the calls
    recorded."""
    for unit in run.screenings.select_related("item"):
        calls = McqScreeningCall.objects.filter(screening=unit).count()
        if unit.status == "done":
            assert (calls, unit.outcome, unit.item.status) == (1, "passed", "final"), unit.pk
        else:
            assert unit.status == "pending", (unit.pk, unit.status)
            assert (calls, unit.item.status) == (0, McqItem.Status.SCREENING), unit.pk
    assert len(server.requests) == McqScreeningCall.objects.filter(screening__run=run).count()


def test_a_screening_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory,
    references,  # noqa: F811
    judge,  # noqa: F811
    person,  # noqa: F811
):
    judge.responder = honest_judge
    worker = celery_worker_factory(extra_env=worker_env(judge), name="screening")
    assemble(references, "CHAR_01", "CHAR_04", "CHAR_05")

    run = screening_runs.screening_run_for_everything_awaiting(
        user=person(Role.ADMIN), budget_usd="1.00"
    )  # autocommit: queued at once
    assert run.budget_usd == Decimal("1.00")
    wait_for(run, settled, worker, "the run to stop at its budget")

    spent = sum(unit.cost_usd for unit in run.screenings.all())
    assert spent >= Decimal("1.00")
    assert run.screenings.filter(status="done").count() == 1
    assert run.screenings.filter(status="pending").count() == 2
    assert "budget of $1.00" in run.stop_reason
    assert_nothing_lost_or_twice(run, judge)

    with pytest.raises(McqError, match="would stop again"):
        screening_runs.screening_run_resume(run_id=run.pk, budget_usd="1.00")
    run.refresh_from_db()
    assert run.status == Run.STOPPED_AT_BUDGET and run.budget_usd == Decimal("1.00")

    screening_runs.screening_run_resume(run_id=run.pk, budget_usd=None)
    wait_for(run, lambda r: r.status == Run.FINISHED, worker, "the resumed run to finish")

    assert run.budget_usd is None and run.stop_reason == ""
    assert run.screenings.filter(status="done").count() == 3
    assert_nothing_lost_or_twice(run, judge)
