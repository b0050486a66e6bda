"""A memory audit run's budget (issue #36): once the recorded cost of its repair calls
reaches its budget, the run stops at budget saying why, the repairs not yet made wait
(no call sent), and a resume with a higher budget finishes them, nothing lost or made
twice. Through a real Celery worker over Redis, the repair model the fake provider on
loopback, configured and priced through the worker's own environment."""

import time
from decimal import Decimal

import pytest

from audit.memory_quality.models import (
    AuditCall,
    AuditError,
    AuditRun,
    MemoryCase,
    RepairAttempt,
)
from audit.memory_quality.services.runs import audit_run_start, queue_run
from audit.memory_quality.services.spending import audit_run_budget_resume
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory

from .audit_helpers import answer, flagged_corpus

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Status = AuditRun.Status


@pytest.fixture
def server():
    with FakeProviderServer(responder=answer) as server:
        yield server


def repair_env(server) -> dict:
    # Prices high enough that one repair costs more than a cent. The fact check is off:
    # this test counts repair calls (tests/fact_preservation/test_fact_check_budget.py
    # holds the check's calls at a budget).
    return {
        "HEARTBENCH_AUDIT_FACT_CHECK": "0",
        "HEARTBENCH_AUDIT_REPAIR_KIND": "openai",
        "HEARTBENCH_AUDIT_REPAIR_BASE_URL": server.base_url("openai"),
        "HEARTBENCH_AUDIT_REPAIR_MODEL": "fake-repair",
        "HEARTBENCH_AUDIT_REPAIR_API_KEY": "test-key",
        "HEARTBENCH_AUDIT_REPAIR_MAX_RETRIES": "1",
        "HEARTBENCH_AUDIT_REPAIR_PRICE_IN": "3000",
        "HEARTBENCH_AUDIT_REPAIR_PRICE_OUT": "15000",
    }


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        cases = list(run.cases.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited for {what}: {run.status} {cases}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def assert_nothing_lost_or_twice(run):
    """Every case was repaired once (one attempt, its one recorded call) or still waits
    under repair with no attempt and no call."""
    for case in run.cases.all():
        attempts = RepairAttempt.objects.filter(case=case)
        if case.status == MemoryCase.Status.REPAIRED:
            (attempt,) = attempts
            assert attempt.passed and attempt.call is not None
        else:
            assert case.status == MemoryCase.Status.REPAIRING, (case.pk, case.status)
            assert not attempts.exists(), case.pk
    assert AuditCall.objects.filter(run=run).count() == (
        RepairAttempt.objects.filter(case__run=run).count()
    )


def test_an_audit_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory, server, settings
):
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = None  # the worker's environment has it
    settings.HEARTBENCH_AUDIT_FACT_CHECK = False  # as in the worker's
    worker = celery_worker_factory(extra_env=repair_env(server), name="audit-budget")
    flagged_corpus(["CHAR_01", "CHAR_02", "CHAR_03"], clean=False)
    run = audit_run_start(created_by=UserFactory(roles=[Role.ADMIN]), budget_usd="0.01")
    assert run.budget_usd == Decimal("0.01")

    queue_run(run)  # autocommit: sent at once
    wait_for(
        run, lambda r: r.status == Status.STOPPED_AT_BUDGET, worker, "the run to stop at its budget"
    )
    time.sleep(1.0)  # the held repairs' tasks have all been taken up: none calls late
    run.refresh_from_db()

    spent = sum(u.cost_usd for u in run.units.all())
    assert spent >= Decimal("0.01")
    assert "budget of $0.01" in run.stop_reason
    # One repair costs more than the budget: the solo worker made one, then held the rest.
    assert run.cases.filter(status=MemoryCase.Status.REPAIRED).count() == 1
    assert run.cases.filter(status=MemoryCase.Status.REPAIRING).count() == 2
    assert len(server.requests) == 1
    assert_nothing_lost_or_twice(run)

    # A resume that would stop again at once is refused, saying why.
    with pytest.raises(AuditError, match="would stop again"):
        audit_run_budget_resume(run_id=run.pk, budget_usd="0.01")

    audit_run_budget_resume(run_id=run.pk, budget_usd="100000")
    wait_for(
        run,
        lambda r: not r.cases.filter(status=MemoryCase.Status.REPAIRING).exists(),
        worker,
        "the held repairs to be made",
    )
    assert run.status == Status.FINISHED
    assert run.budget_usd == Decimal("100000.00") and run.stop_reason == ""
    assert run.cases.filter(status=MemoryCase.Status.REPAIRED).count() == 3
    assert len(server.requests) == 3
    assert_nothing_lost_or_twice(run)
