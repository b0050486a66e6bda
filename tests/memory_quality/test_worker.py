"""The automated audit and its repair loop on a real `celery worker` process: the run's
progress reaches 100 %, and the worker's repair model (configured through its own
environment) is the fake provider server over loopback."""

import time

import pytest

from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services.runs import audit_run_start
from core.tasks import enqueue_on_commit
from llm.testing.fact_check import other_requests

from .conftest import DRIFT, FAITHFUL_REWRITE, hand_written


def wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.django_db(transaction=True)
def test_a_worker_audits_and_repairs_on_attempt_two(celery_worker_factory, fake_server, person):
    from core.roles import Role

    admin = person(Role.ADMIN)
    memory = hand_written(content_full=DRIFT)
    fake_server.enqueue(
        {"content_full": FAITHFUL_REWRITE + " Years later it still stung."},
        {"content_full": FAITHFUL_REWRITE},
    )
    celery_worker_factory(
        extra_env={
            "HEARTBENCH_AUDIT_REPAIR_KIND": "openai",
            "HEARTBENCH_AUDIT_REPAIR_BASE_URL": fake_server.base_url("openai"),
            "HEARTBENCH_AUDIT_REPAIR_MODEL": "fake-repair",
            "HEARTBENCH_AUDIT_REPAIR_API_KEY": "test-key",
            "HEARTBENCH_AUDIT_REPAIR_MAX_RETRIES": "1",
        },
        name="audit",
    )
    run = audit_run_start(created_by=admin)
    # autocommit: queued at once
    enqueue_on_commit("audit.run_memory_audit", run.pk, what=f"Audit run {run.pk}")

    assert wait_for(lambda: AuditRun.objects.get(pk=run.pk).status == "finished")
    run.refresh_from_db()
    assert run.memory_done == run.memory_total == 1 and run.percent == 100
    assert wait_for(
        lambda: MemoryCase.objects.filter(run=run, status=MemoryCase.Status.REPAIRED).exists()
    )
    case = MemoryCase.objects.get(run=run)
    assert [a.passed for a in case.attempts.order_by("number")] == [False, True]
    memory.refresh_from_db()
    assert memory.content_full == FAITHFUL_REWRITE
    assert len(other_requests(fake_server.requests)) == 2
    check = case.attempts.get(number=2).fact_check  # on by default: the kept rewrite
    assert (check.status, check.missing_count) == ("passed", 0)
