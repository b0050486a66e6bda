"""Faults during a memory generation run through real Celery workers (issue #33).

- the broker (Redis) restarts while batches are in flight;
- the provider answers some slots with output that is not JSON, or JSON that breaks
  the memory schema;
- the provider cannot be reached at all (nothing listens on its port).

Either way the run completes, or shows its failed batches with their reasons, a retry
once the provider is fixed completes it, and no slot is filled twice. A worker killed
mid-batch is covered by
``tests/memory_generation/test_faults.py::test_killing_the_worker_mid_batch_loses_and_duplicates_nothing``.
"""

import time

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryCallRecord,
    MemoryRun,
)
from annotation.memory_generation.services.runs import run_create, run_retry_failed, run_start
from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import json_reply, non_json_reply
from tests.factories import UserFactory
from tests.generation.helpers import ClosedProvider
from tests.memory_generation.fixtures_runs import MemoryResponder, memory_env, slot_of
from tests.memory_generation.test_worker import (
    FINAL,
    QUOTAS,
    WAIT_SECONDS,
    assert_complete_and_unique,
    two_characters,
    wait_for,
)

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]

Status = MemoryRun.Status
BatchStatus = MemoryBatch.Status
SLOTS = sum(sum(counts.values()) for counts in QUOTAS.values())


def finished(run):
    return run.status in FINAL


def use_provider(monkeypatch, server, **options) -> dict[str, str]:
    """The provider's environment, for this process (run_create reads it) and a worker."""
    env = memory_env(server, **options)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    clear_client_cache()
    return env


def assert_each_slot_once(run):
    slots = list(GeneratedMemory.objects.filter(batch__run=run).values_list("batch_id", "slot"))
    assert len(slots) == len(set(slots)), "a slot was filled twice"
    assert len(slots) == Memory.objects.count()
    for batch in run.batches.filter(status=BatchStatus.FAILED):
        assert batch.error_kind and batch.error_message, f"batch {batch.pk} failed silently"


def test_a_redis_restart_mid_run_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, memory_server, monkeypatch
):
    memory_server.latency_s = 0.5  # calls are in flight when the broker goes away
    env = {
        **use_provider(monkeypatch, memory_server),
        "CELERY_BROKER_URL": own_redis.url,
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="redis")

    worker = start_worker()
    run = run_create(user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=2)
    run_start(run_id=run.pk, user=None)

    def some_stored_some_waiting(run):
        return GeneratedMemory.objects.filter(batch__run=run).exists() and (
            run.batches.filter(status=BatchStatus.PENDING).count() >= 2
        )

    wait_for(run, some_stored_some_waiting, worker, "memories stored and batches waiting")
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(2)  # batches end meanwhile and cannot send the next ones
    own_redis.start()

    # A worker that lost its broker connection mid-ack may exit; it is restarted, as
    # docker-compose would. Nothing may be lost or duplicated either way.
    deadline = time.monotonic() + WAIT_SECONDS
    while not finished(run):
        assert time.monotonic() < deadline, (
            f"waited {WAIT_SECONDS}s: "
            f"{list(run.batches.values_list('index', 'status', 'queued_at'))}"
        )
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.3)
        run.refresh_from_db()
    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    assert_each_slot_once(run)


def test_a_batch_the_broker_lost_is_sent_again_when_a_worker_connects(
    own_redis, celery_worker_factory, memory_server, monkeypatch
):
    """A batch that ends while the broker is down cannot send the next ones, and a
    restart can drop a message in flight; the rows know which batches were sent. Here
    one of the two batches sent at the start is removed from the queue before any
    worker runs: the worker sends it again when it connects."""
    import redis as redis_client

    env = {**use_provider(monkeypatch, memory_server), "CELERY_BROKER_URL": own_redis.url}
    run = run_create(user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=2)
    run_start(run_id=run.pk, user=None)
    broker = redis_client.Redis.from_url(own_redis.url)
    assert broker.llen("celery") == 2
    assert broker.rpop("celery") is not None  # the oldest message, lost
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="sweep")

    wait_for(run, finished, worker)
    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    assert_each_slot_once(run)
    # No batch was sent twice: each was taken by a worker exactly once.
    assert set(run.batches.values_list("attempts", flat=True)) == {1}
    assert len(memory_server.requests) == SLOTS


class BrokenAges(MemoryResponder):
    """Answers the slots of the ages in ``broken`` ({age: answer}) with that answer,
    every time; every other slot with a valid memory."""

    def __init__(self):
        super().__init__()
        self.broken: dict[int, object] = {}

    def __call__(self, req):
        answer = self.broken.get(slot_of(req)["age"])
        return answer if answer is not None else super().__call__(req)


def test_bad_output_fails_its_batches_with_a_reason_and_a_retry_completes_them(
    celery_worker_factory, monkeypatch
):
    responder = BrokenAges()
    # CHAR_02's two batches (ages 7 and 41); CHAR_01's are answered well.
    responder.broken = {
        7: non_json_reply("Here is a memory: I was seven and it rained."),
        41: json_reply({"timeline": "middle adulthood (41 years old)"}),  # most fields missing
    }
    with FakeProviderServer(responder=responder) as server:
        env = use_provider(monkeypatch, server, timeout=2.0)
        worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
        run = run_create(
            user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=2
        )
        run_start(run_id=run.pk, user=None)
        wait_for(run, finished, worker)

        assert run.status == Status.FINISHED_WITH_FAILURES
        failed = list(run.batches.filter(status=BatchStatus.FAILED))
        assert {b.character.key for b in failed} == {"CHAR_02"}
        assert set(
            run.batches.filter(character__key="CHAR_01").values_list("status", flat=True)
        ) == {BatchStatus.SUCCEEDED}
        kinds = {b.first_age: (b.error_kind, b.error_message) for b in failed}
        assert set(kinds) == {7, 41}
        kind, message = kinds[7]
        assert kind == "invalid_json"
        assert message.startswith("Slot 0 (age 7): the call failed after 3 requests in 3 rounds")
        assert "the reply is not valid JSON" in message
        kind, message = kinds[41]
        assert kind == "schema_invalid"
        assert "is a required property" in message
        # nothing of CHAR_02 was stored; each failed batch made one recorded call
        assert not Memory.objects.filter(character__key="CHAR_02").exists()
        for batch in failed:
            assert not batch.memories.exists()
            call = MemoryCallRecord.objects.get(batch=batch)
            assert not call.ok and call.error_kind == batch.error_kind
        assert Memory.objects.filter(character__key="CHAR_01").count() == 7
        assert_each_slot_once(run)

        responder.broken.clear()  # the provider is fixed
        run_retry_failed(run_id=run.pk, user=None)
        wait_for(run, finished, worker)
        clear_client_cache()

    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    assert_each_slot_once(run)
    for batch in run.batches.filter(character__key="CHAR_02"):
        assert batch.attempts == 2 and not batch.error_kind and not batch.error_message


def test_an_unreachable_provider_fails_batches_by_name_and_a_retry_completes_them(
    celery_worker_factory, monkeypatch
):
    with ClosedProvider(MemoryResponder()) as provider:
        env = use_provider(monkeypatch, provider, timeout=2.0, max_retries=1)
        worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
        run = run_create(
            user=UserFactory(), plan_ids=[p.pk for p in two_characters()], concurrency=2
        )
        run_start(run_id=run.pk, user=None)
        wait_for(run, finished, worker)

        assert run.status == Status.FINISHED_WITH_FAILURES
        batches = list(run.batches.all())
        assert batches and all(b.status == BatchStatus.FAILED for b in batches)
        for batch in batches:
            assert batch.error_kind == "connection_error"
            assert batch.error_message.startswith("Slot 0 (age ")
            assert "the call failed after 2 requests in 1 round" in batch.error_message
            assert "Connection refused" in batch.error_message
            # nothing half-stored: no memory, no tokens or cost, one failed call on record
            assert batch.tokens_in == batch.tokens_out == 0 and not batch.cost_usd
            call = MemoryCallRecord.objects.get(batch=batch)
            assert (call.slot, call.ok, call.error_kind) == (0, False, "connection_error")
        assert not Memory.objects.exists() and not GeneratedMemory.objects.exists()

        provider.open()  # the provider is back, on the same address
        run_retry_failed(run_id=run.pk, user=None)
        wait_for(run, finished, worker)
        clear_client_cache()

    assert run.status == Status.FINISHED
    assert_complete_and_unique(run)
    assert_each_slot_once(run)
    assert Memory.objects.count() == SLOTS
    assert set(run.batches.values_list("attempts", flat=True)) == {2}
