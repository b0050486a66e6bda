"""Faults during a generation run through real Celery workers (issues #12, #33).

- the broker (Redis) restarts while units are in flight;
- the fake LLM provider fails a fifth of its calls at random;
- the provider answers some units with output that is not JSON, or JSON that breaks
  the response schema;
- the provider cannot be reached at all (nothing listens on its port).

Either way the run completes, or shows its failed units with their reasons, a retry
once the provider is fixed completes it, and no unit yields two candidates. A worker
killed mid-run is covered by
``tests/generation/test_worker.py::test_killing_the_worker_mid_run_loses_and_duplicates_nothing``.
"""

import random
import threading
import time

import pytest

from annotation.generation.models import Candidate, GenerationRun, GenerationUnit, LlmCallRecord
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import (
    generation_run_create,
    generation_run_retry_failed,
    generation_run_start,
)
from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import json_reply, non_json_reply, server_error
from tests.factories import UserFactory
from tests.generation.helpers import (
    VALID_RESPONSE,
    ClosedProvider,
    ScriptedProvider,
    family_settings,
    stage_of,
    worker_env,
)
from tests.generation.test_worker import WAIT_SECONDS, corpus, finished, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]

FAULT_SHARE = 0.2
FAULT_SEED = 20261012


@pytest.fixture
def script():
    return ScriptedProvider()


@pytest.fixture
def fake_server(script):
    with FakeProviderServer(responder=script) as server:
        yield server


@pytest.fixture
def providers(settings, fake_server):
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(fake_server, timeout=5.0)
    yield
    clear_client_cache()


def assert_no_duplicates(run):
    units = run.units.all()
    per_unit = list(Candidate.objects.filter(run=run).values_list("unit_id", flat=True))
    assert len(per_unit) == len(set(per_unit)), "a unit yielded two candidates"
    succeeded = set(
        units.filter(status=GenerationUnit.Status.SUCCEEDED).values_list("pk", flat=True)
    )
    assert set(per_unit) == succeeded
    for unit in units.filter(status=GenerationUnit.Status.FAILED):
        assert unit.error_kind and unit.error_message, f"unit {unit.pk} failed without a reason"


def test_a_redis_restart_mid_run_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, providers, fake_server
):
    fake_server.latency_s = 1.0  # units are in flight when the broker goes away
    env = {
        **worker_env(fake_server, timeout=5.0),
        "CELERY_BROKER_URL": own_redis.url,
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        # a worker killed while holding the restore mutex must not block the others
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=4, name="redis")

    worker = start_worker()
    corpus(characters=3, scenarios=3)
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=run.pk)

    def some_done_some_waiting(run):
        statuses = list(run.units.values_list("status", flat=True))
        return statuses.count(GenerationUnit.Status.SUCCEEDED) >= 1 and (
            statuses.count(GenerationUnit.Status.PENDING) >= 3
        )

    wait_for(run, some_done_some_waiting, worker, "units done and units queued")
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(2)  # the worker notices the broker is gone and keeps retrying
    own_redis.start()

    # kombu can lose its connection object while a thread acks at the moment the broker
    # goes away, and the worker exits; docker-compose restarts it (restart: unless-stopped),
    # and so does this test. Nothing may be lost or duplicated either way.
    deadline = time.monotonic() + WAIT_SECONDS
    while not finished(run):
        assert time.monotonic() < deadline, (
            f"waited {WAIT_SECONDS}s: {generation_run_progress(run_id=run.pk)}"
        )
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.5)
        run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert run.units.count() == 27
    assert Candidate.objects.filter(run=run).count() == 27
    assert_no_duplicates(run)


def test_a_message_the_broker_lost_is_sent_again_when_a_worker_connects(
    own_redis, celery_worker_factory, providers, fake_server
):
    """A restart can drop a message in flight; the rows know the unit is still pending.
    Here one unit's message is removed from the queue before any worker runs: the worker
    sends it again when it connects, and every other unit runs exactly once."""
    import redis as redis_client

    corpus(characters=3, scenarios=3)
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=run.pk)
    broker = redis_client.Redis.from_url(own_redis.url)
    assert broker.llen("celery") == 27
    assert broker.rpop("celery") is not None  # the oldest message, lost
    env = {**worker_env(fake_server, timeout=5.0), "CELERY_BROKER_URL": own_redis.url}
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=4, name="sweep")

    wait_for(run, finished, worker)
    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert Candidate.objects.filter(run=run).count() == 27
    assert_no_duplicates(run)
    # No unit was sent twice: each was taken by a worker exactly once.
    assert set(run.units.values_list("attempts", flat=True)) == {1}


class FlakyProvider(ScriptedProvider):
    """A fifth of all calls, at random (seeded), get an HTTP 500."""

    def __init__(self, share: float, seed: int):
        super().__init__()
        self.rng = random.Random(seed)
        self.share = share
        self.served = 0
        self.failed = 0
        self.rng_lock = threading.Lock()

    def __call__(self, req):
        with self.rng_lock:
            self.served += 1
            fail = self.rng.random() < self.share
            self.failed += fail
        return server_error(500) if fail else super().__call__(req)


def test_a_provider_failing_a_fifth_of_its_calls_still_completes_the_run(
    celery_worker_factory, settings
):
    flaky = FlakyProvider(FAULT_SHARE, FAULT_SEED)
    with FakeProviderServer(responder=flaky) as server:
        settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=5.0)
        worker = celery_worker_factory(
            extra_env=worker_env(server, timeout=5.0, max_retries=2), pool="threads", concurrency=4
        )
        corpus(characters=3, scenarios=3)
        run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
        generation_run_start(run_id=run.pk)
        wait_for(run, finished, worker)

        # Every request the server saw, and every 500 it injected, is on record: the
        # platform's attempt log agrees with the server's own count.
        assert flaky.served > 27 * 2 and flaky.failed > 0
        attempts = [
            a for c in LlmCallRecord.objects.filter(unit__run=run) for a in c.details["attempts"]
        ]
        assert len(attempts) == flaky.served
        assert sum(a["status_code"] == 500 for a in attempts) == flaky.failed
        assert all(a["error_kind"] == "server_error" for a in attempts if a["status_code"] == 500)
        assert run.status in (
            GenerationRun.Status.FINISHED,
            GenerationRun.Status.FINISHED_WITH_FAILURES,
        )
        assert_no_duplicates(run)
        failed = run.units.filter(status=GenerationUnit.Status.FAILED)
        for unit in failed:
            assert unit.error_kind == "server_error"
            assert "HTTP 500" in unit.error_message

        if failed.exists():
            generation_run_retry_failed(run_id=run.pk)
            wait_for(run, finished, worker)
            assert_no_duplicates(run)
        clear_client_cache()
    assert (
        Candidate.objects.filter(run=run).count()
        == run.units.filter(status=GenerationUnit.Status.SUCCEEDED).count()
    )


class BrokenResponses(ScriptedProvider):
    """Answers the response stage of the models in ``broken`` ({model: answer}) with
    that answer, every time; every other request as the scripted provider does."""

    def __init__(self):
        super().__init__()
        self.broken: dict[str, object] = {}

    def __call__(self, req):
        if stage_of(req) == "response" and req.model in self.broken:
            return self.broken[req.model]
        return super().__call__(req)


def calls_per_stage(unit) -> dict[str, int]:
    stages = list(LlmCallRecord.objects.filter(unit=unit).values_list("stage", flat=True))
    return {stage: stages.count(stage) for stage in set(stages)}


def test_bad_output_fails_its_units_with_a_reason_and_a_retry_completes_them(
    celery_worker_factory, settings
):
    provider = BrokenResponses()
    provider.broken = {
        "fake-gpt-response": non_json_reply("Of course! I think I would stay home."),
        # valid JSON, but without the inner consciousness the schema requires
        "fake-gemini-response": json_reply({"final_decision": VALID_RESPONSE["final_decision"]}),
    }
    with FakeProviderServer(responder=provider) as server:
        settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=2.0)
        worker = celery_worker_factory(
            extra_env=worker_env(server, timeout=2.0), pool="threads", concurrency=3
        )
        corpus(characters=1, scenarios=2)
        run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
        generation_run_start(run_id=run.pk)
        wait_for(run, finished, worker)

        assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES
        units = {u.pk: u for u in run.units.all()}
        assert len(units) == 6
        assert_no_duplicates(run)
        by_family = {
            family: [u for u in units.values() if u.family == family]
            for family in ("claude", "gpt", "gemini")
        }
        assert all(u.status == GenerationUnit.Status.SUCCEEDED for u in by_family["claude"])
        for unit in by_family["gpt"]:
            assert unit.status == GenerationUnit.Status.FAILED
            assert unit.error_kind == "invalid_json"
            assert unit.error_message.startswith("Response failed after 3 requests in 3 rounds")
            assert "the reply is not valid JSON" in unit.error_message
        for unit in by_family["gemini"]:
            assert unit.status == GenerationUnit.Status.FAILED
            assert unit.error_kind == "schema_invalid"
            assert "'inner_consciousness' is a required property" in unit.error_message
        calls_before = {}
        for unit in by_family["gpt"] + by_family["gemini"]:
            # the stages before the response keep their results; no candidate is stored
            assert unit.stage_reached == "reranking"
            assert not Candidate.objects.filter(unit=unit).exists()
            calls_before[unit.pk] = calls_per_stage(unit)
            assert calls_before[unit.pk]["screening"] == calls_before[unit.pk]["response"] == 1
            call = LlmCallRecord.objects.get(unit=unit, stage="response")
            assert not call.ok and call.error_kind == unit.error_kind

        provider.broken.clear()  # the provider is fixed
        generation_run_retry_failed(run_id=run.pk)
        wait_for(run, finished, worker)
        clear_client_cache()

    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert Candidate.objects.filter(run=run).count() == 6
    assert_no_duplicates(run)
    for unit in run.units.exclude(family="claude"):
        assert unit.attempts == 2 and not unit.error_kind and not unit.error_message
        # the retry started at the response: screening and re-ranking were not asked again
        assert calls_per_stage(unit) == {**calls_before[unit.pk], "response": 2}


def test_an_unreachable_provider_fails_units_by_name_and_a_retry_completes_them(
    celery_worker_factory, settings
):
    with ClosedProvider(ScriptedProvider()) as provider:
        settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(
            provider, timeout=2.0, max_retries=1
        )
        worker = celery_worker_factory(
            extra_env=worker_env(provider, timeout=2.0, max_retries=1),
            pool="threads",
            concurrency=2,
        )
        corpus(characters=1, scenarios=2)
        run = generation_run_create(user=UserFactory(), families=["gpt", "gemini"])
        generation_run_start(run_id=run.pk)
        wait_for(run, finished, worker)

        assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES
        assert run.units.count() == 4
        for unit in run.units.all():
            assert unit.status == GenerationUnit.Status.FAILED
            assert unit.error_kind == "connection_error"
            assert unit.error_message.startswith("Screening")
            assert "failed after 2 requests in 1 round: connection_error: ConnectError" in (
                unit.error_message
            )
            assert "Connection refused" in unit.error_message
            # nothing half-stored: no stage result, no candidate, no tokens or cost
            assert unit.stage_reached == ""
            assert not unit.activated_memory_ids
            assert unit.tokens_in == unit.tokens_out == 0 and not unit.cost_usd
            call = LlmCallRecord.objects.get(unit=unit)
            assert (call.stage, call.ok, call.error_kind) == (
                "screening",
                False,
                "connection_error",
            )
        assert not Candidate.objects.filter(run=run).exists()

        provider.open()  # the provider is back, on the same address
        generation_run_retry_failed(run_id=run.pk)
        wait_for(run, finished, worker)
        clear_client_cache()

    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert Candidate.objects.filter(run=run).count() == 4
    assert_no_duplicates(run)
    assert set(run.units.values_list("attempts", flat=True)) == {2}
