"""A memory generation run's budget (issue #36): once its recorded cost reaches the
budget the run takes up no further batch, keeps every memory it stored, and a resume
with a higher budget (or none) fills the remaining slots, each asked for once. Through a
real Celery worker over Redis, against the fake provider on loopback."""

import time
from collections import Counter
from decimal import Decimal

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import GeneratedMemory, MemoryCallRecord, MemoryRun
from annotation.memory_generation.services.runs import (
    MemoryGenerationError,
    run_create,
    run_resume,
    run_start,
)
from tests.factories import UserFactory
from tests.memory_generation.fixtures_runs import frozen_profile, memory_env, plan_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 180
Status = MemoryRun.Status
QUOTAS = {8: 2, 14: 3, 25: 2, 40: 1}  # four batches: one per life-stage bin
# The worker's prices: one memory costs a few cents.
PRICES = {"HEARTBENCH_MEMORY_PRICE_IN": "3000", "HEARTBENCH_MEMORY_PRICE_OUT": "15000"}


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        batches = list(run.batches.values_list("index", "status", "attempts"))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {batches}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def settled(run) -> bool:
    """Stopped, and no batch held by a worker any more."""
    return run.status == Status.STOPPED_AT_BUDGET and not run.batches.filter(status="running")


def assert_nothing_lost_or_twice(run):
    """Every batch is done with each slot filled once by one call, or still waiting
    with no call made; every call's memory is stored."""
    for batch in run.batches.all():
        slots = Counter(GeneratedMemory.objects.filter(batch=batch).values_list("slot", flat=True))
        calls = Counter(MemoryCallRecord.objects.filter(batch=batch).values_list("slot", flat=True))
        if batch.status == "succeeded":
            assert slots == calls == Counter(range(batch.slot_count)), batch.index
            assert batch.attempts == 1, batch.index
        else:
            assert batch.status == "pending", (batch.index, batch.status)
            assert (sum(slots.values()), sum(calls.values()), batch.attempts) == (0, 0, 0)
    assert Memory.objects.count() == GeneratedMemory.objects.count()


def test_a_memory_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory, memory_server, monkeypatch
):
    env = {**memory_env(memory_server), **PRICES}
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # run_create reads the provider here too
    worker = celery_worker_factory(extra_env=env)
    plan = plan_for(frozen_profile("CHAR_01"), QUOTAS)
    run = run_create(user=UserFactory(), plan_ids=[plan.pk], concurrency=1, budget_usd="0.01")
    assert run.budget_usd == Decimal("0.01") and run.batches.count() == 4

    run_start(run_id=run.pk, user=None)
    wait_for(run, settled, worker, "the run to stop at its budget")

    spent = sum(b.cost_usd for b in run.batches.all())
    assert spent >= Decimal("0.01")
    assert spent == sum(c.cost_usd for c in MemoryCallRecord.objects.filter(batch__run=run))
    # One batch costs more than the budget: the run took up the largest, then stopped.
    done = run.batches.filter(status="succeeded")
    assert [b.slot_count for b in done] == [3]
    assert run.batches.filter(status="pending").count() == 3
    assert "budget of $0.01" in run.stop_reason
    assert Memory.objects.count() == 3
    assert_nothing_lost_or_twice(run)

    # A resume that would stop again at once is refused, saying why; nothing changes.
    with pytest.raises(MemoryGenerationError, match="would stop again"):
        run_resume(run_id=run.pk, user=None, budget_usd="0.01")
    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET and run.budget_usd == Decimal("0.01")

    run_resume(run_id=run.pk, user=None, budget_usd="1000")
    wait_for(run, lambda r: r.status == Status.FINISHED, worker, "the resumed run to finish")

    assert run.budget_usd == Decimal("1000") and run.stop_reason == ""
    assert Counter(Memory.objects.values_list("event_age", flat=True)) == QUOTAS
    assert len(memory_server.requests) == 8  # every slot asked for once
    assert_nothing_lost_or_twice(run)
