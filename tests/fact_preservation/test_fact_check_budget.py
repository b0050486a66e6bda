"""The fact check's calls are held at the run's spending limit like the repair calls, on a
real Celery worker over Redis whose repair model (configured, priced and with the fact
check switched on through the worker's own environment) is the fake provider server on
loopback: a run whose repair call reaches its budget stops before the fact check calls,
the rewrite waits unkept, and a resume makes the two calls once and keeps the rewrite."""

import time
from decimal import Decimal

import pytest

from audit.memory_quality.models import AuditCall, AuditRun, FactCheck, MemoryCase
from audit.memory_quality.services.runs import audit_run_start, queue_run
from audit.memory_quality.services.spending import audit_run_budget_resume
from core.roles import Role
from llm.testing.fact_check import FactCheckResponder
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory
from tests.memory_quality.conftest import CLEAN, DRIFT, hand_written

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Status = AuditRun.Status


@pytest.fixture
def server():
    with FakeProviderServer(responder=FactCheckResponder(lambda req: {"content_full": CLEAN})) as s:
        yield s


def worker_env(server) -> dict:
    # Prices high enough that one repair call costs more than the run's cent.
    return {
        "HEARTBENCH_AUDIT_REPAIR_KIND": "openai",
        "HEARTBENCH_AUDIT_REPAIR_BASE_URL": server.base_url("openai"),
        "HEARTBENCH_AUDIT_REPAIR_MODEL": "fake-repair",
        "HEARTBENCH_AUDIT_REPAIR_API_KEY": "test-key",
        "HEARTBENCH_AUDIT_REPAIR_MAX_RETRIES": "1",
        "HEARTBENCH_AUDIT_REPAIR_PRICE_IN": "3000",
        "HEARTBENCH_AUDIT_REPAIR_PRICE_OUT": "15000",
        "HEARTBENCH_AUDIT_FACT_CHECK": "1",
    }


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, f"waited for {what}: {run.status}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def test_a_budget_holds_the_fact_check_calls_and_a_resume_makes_them_once(
    celery_worker_factory, server, settings
):
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = None  # the worker's environment has it
    worker = celery_worker_factory(extra_env=worker_env(server), name="fact-budget")
    memory = hand_written(content_full=DRIFT)
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]), budget_usd="0.01")

    queue_run(run)  # autocommit: sent at once
    wait_for(run, lambda r: r.status == Status.STOPPED_AT_BUDGET, worker, "the budget stop")
    time.sleep(1.0)  # a late call would show now
    run.refresh_from_db()

    # The repair was made and paid for; its fact check was held: no call sent.
    assert "budget of $0.01" in run.stop_reason
    assert sum(u.cost_usd for u in run.units.all()) >= Decimal("0.01")
    assert len(server.requests) == 1
    assert list(AuditCall.objects.filter(run=run).values_list("kind", flat=True)) == ["repair"]
    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REPAIRING
    (check,) = FactCheck.objects.filter(attempt__case=case)
    assert check.status == FactCheck.Status.EXTRACTING and not check.attempt.passed
    memory.refresh_from_db()
    assert memory.content_full == DRIFT  # not kept before its check

    audit_run_budget_resume(run_id=run.pk, budget_usd="100000")
    wait_for(
        run,
        lambda r: not r.cases.filter(status=MemoryCase.Status.REPAIRING).exists(),
        worker,
        "the held fact check to be made",
    )
    case.refresh_from_db()
    check.refresh_from_db()
    assert case.status == MemoryCase.Status.REPAIRED
    assert check.status == FactCheck.Status.PASSED and check.attempt.passed
    kinds = list(AuditCall.objects.filter(run=run).order_by("pk").values_list("kind", flat=True))
    assert kinds == ["repair", "fact_extract", "fact_check"]  # each once
    assert len(server.requests) == 3
    assert all(c.cost_usd > 0 for c in AuditCall.objects.filter(run=run))
    memory.refresh_from_db()
    assert memory.content_full == CLEAN
