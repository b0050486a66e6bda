"""Memory generation runs through a real Celery worker process over Redis, against the
fake provider on loopback (the worker reads HEARTBENCH_MEMORY_* from its environment)."""

import time
from collections import Counter

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import GeneratedMemory, MemoryBatch, MemoryRun
from annotation.memory_generation.services.runs import (
    run_cancel,
    run_create,
    run_resume,
    run_start,
)
from tests.factories import UserFactory

from .fixtures_runs import (
    frozen_profile,
    memory_env,
    plan_for,
)

WAIT_SECONDS = 180
Status = MemoryRun.Status
FINAL = (Status.FINISHED, Status.FINISHED_WITH_FAILURES, Status.CANCELLED)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

QUOTAS = {
    "CHAR_01": {13: 3, 14: 2, 29: 2},
    "CHAR_02": {7: 2, 41: 3},
}


def wait_for(run, done, worker, what="the run to finish"):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.1)


def two_characters():
    return [
        plan_for(frozen_profile("CHAR_01"), QUOTAS["CHAR_01"]),
        plan_for(frozen_profile("CHAR_02", neuroticism=0.1), QUOTAS["CHAR_02"]),
    ]


def assert_complete_and_unique(run):
    for key, counts in QUOTAS.items():
        ages = Counter(
            Memory.objects.filter(character__key=key).values_list("event_age", flat=True)
        )
        assert ages == counts, key
        sequences = list(
            Memory.objects.filter(character__key=key)
            .order_by("sequence")
            .values_list("sequence", flat=True)
        )
        assert sequences == list(range(1, sum(counts.values()) + 1))
    slots = list(GeneratedMemory.objects.filter(batch__run=run).values_list("batch_id", "slot"))
    assert len(slots) == len(set(slots)) == Memory.objects.count()


def test_a_run_generates_two_characters_through_a_worker(
    celery_worker_factory, memory_server, monkeypatch
):
    env = memory_env(memory_server)
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # run_create reads the provider here too
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=4)
    run = run_create(user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=3)
    run_start(run_id=run.pk, user=None)
    wait_for(run, lambda r: r.status in FINAL, worker)

    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    assert set(run.batches.values_list("status", flat=True)) == {MemoryBatch.Status.SUCCEEDED}
    assert Memory.objects.filter(memory_id__startswith="MEM_CHAR_02_N_LOW_").count() == 5
    assert all(
        m.source.startswith(f"generated: run {run.pk}, batch ") for m in Memory.objects.all()
    )
    assert len(memory_server.requests) == 12


def test_cancel_mid_run_then_resume_duplicates_nothing(
    celery_worker_factory, memory_server, monkeypatch
):
    memory_server.latency_s = 0.3
    env = memory_env(memory_server)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    run = run_create(user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=1)
    run_start(run_id=run.pk, user=None)
    wait_for(
        run, lambda r: GeneratedMemory.objects.filter(batch__run=r).exists(), worker, "a memory"
    )
    run_cancel(run_id=run.pk, user=None)
    wait_for(run, lambda r: r.status == Status.CANCELLED, worker, "the cancel")
    stored = Memory.objects.count()
    assert 0 < stored < 12
    assert run.batches.filter(status=MemoryBatch.Status.CANCELLED).exists()

    run_resume(run_id=run.pk, user=None)
    wait_for(run, lambda r: r.status in FINAL, worker)

    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    # every call that was sent was stored: none was asked for a filled slot
    assert len(memory_server.requests) == 12
