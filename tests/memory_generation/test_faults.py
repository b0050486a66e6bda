"""A worker killed mid-batch, then a new worker: the batch is redelivered and asks only
for its empty slots; nothing is duplicated and nothing is lost."""

import os
import signal

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import GeneratedMemory, MemoryBatch, MemoryRun
from annotation.memory_generation.services.runs import run_create, run_start
from tests.factories import UserFactory

from .fixtures_runs import (
    memory_env,
)
from .test_worker import FINAL, QUOTAS, assert_complete_and_unique, two_characters, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_killing_the_worker_mid_batch_loses_and_duplicates_nothing(
    celery_worker_factory, memory_server, monkeypatch
):
    memory_server.latency_s = 0.4  # calls are in flight when the worker dies
    env = {
        **memory_env(memory_server),
        # redeliver a dead worker's tasks after 3 s, looking every second
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        # a worker killed while holding the restore mutex must not block the others
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }
    for name, value in memory_env(memory_server).items():
        monkeypatch.setenv(name, value)
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="doomed")
    run = run_create(user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=2)
    run_start(run_id=run.pk, user=None)

    def mid_batch(run):
        running = run.batches.filter(status=MemoryBatch.Status.RUNNING)
        return any(
            0 < GeneratedMemory.objects.filter(batch=b).count() < b.slot_count for b in running
        )

    wait_for(run, mid_batch, worker, "a batch half filled")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    interrupted = set(
        run.batches.filter(status=MemoryBatch.Status.RUNNING).values_list("pk", flat=True)
    )
    assert interrupted
    before = Memory.objects.count()
    assert 0 < before < sum(sum(c.values()) for c in QUOTAS.values())

    replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    wait_for(run, lambda r: r.status in FINAL, replacement)

    assert run.status == MemoryRun.Status.FINISHED
    assert_complete_and_unique(run)
    # the interrupted batches were redelivered and taken up a second time
    assert all(b.attempts >= 2 for b in run.batches.filter(pk__in=interrupted))
