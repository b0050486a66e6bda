"""Faults during the memory audit through real Celery workers (issue #33): the audit run
(one unit per character) and the LLM classifier's calls on its memories.

- a worker SIGKILLed while classifier calls are in flight: a new worker finishes them,
  nothing is lost and no memory gets two verdicts;
- the broker (Redis) restarts while classifier calls are in flight: the same;
- the provider answers output that is no JSON: each call fails with its reason, nothing
  is flagged, and asking again once the provider is fixed completes every memory;
- the provider is unreachable (a closed port): the same, the reason named.
"""

import os
import signal
import time

import pytest

from audit.memory_quality.models import (
    AuditCall,
    AuditRun,
    AuditUnit,
    ClassifierResult,
    MemoryFlag,
)
from audit.memory_quality.services.classifier import classifier_run_start
from audit.memory_quality.services.runs import audit_run_start, queue_run
from core.llm_runs.models import RunStatus
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import non_json_reply
from tests.factories import CharacterFactory, UserFactory
from tests.memory_quality.conftest import CLEAN, CLEAN_REWRITE, hand_written
from tests.reliability.faults import free_port

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]

WAIT_SECONDS = 120
CRITERION = 1
NO_DEFECT = {"defect": False, "evidence": "", "rationale": "told in the moment"}
# A dead worker's tasks come back after 3 s, looked for every second.
REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "3",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
    "CELERY_UNACKED_MUTEX_EXPIRE": "2",
}


class Provider:
    """The classifier model: a verdict on every request, or output that is no JSON."""

    def __init__(self):
        self.broken = False

    def __call__(self, req):
        return non_json_reply() if self.broken else NO_DEFECT


@pytest.fixture
def provider():
    return Provider()


@pytest.fixture
def fake_server(provider):
    with FakeProviderServer(responder=provider) as server:
        yield server


def classifier_env(base_url: str) -> dict:
    return {
        "HEARTBENCH_AUDIT_CLASSIFIER_KIND": "openai",
        "HEARTBENCH_AUDIT_CLASSIFIER_BASE_URL": base_url,
        "HEARTBENCH_AUDIT_CLASSIFIER_MODEL": "fake-classifier",
        "HEARTBENCH_AUDIT_CLASSIFIER_API_KEY": "test-key",
        "HEARTBENCH_AUDIT_CLASSIFIER_TIMEOUT": "2",
        "HEARTBENCH_AUDIT_CLASSIFIER_MAX_RETRIES": "0",
    }


@pytest.fixture
def classifier_configured(settings, fake_server):
    """The test process only checks a classifier is configured; the workers call it."""
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = ProviderConfig(
        kind="openai", model="fake-classifier", base_url=fake_server.base_url("openai")
    )


def corpus(characters=2, memories=3) -> int:
    """``memories`` hand-written memories for each character (the classifier's model
    finds no defect in any)."""
    for c in range(1, characters + 1):
        character = CharacterFactory(key=f"CHAR_{c:02d}")
        for n in range(memories):
            text = CLEAN if n % 2 else CLEAN_REWRITE
            hand_written(character, sequence=n + 1, event_age=8 + n, content_full=text)
    return characters * memories


def wait_for(done, what: str, worker=None):
    deadline = time.monotonic() + WAIT_SECONDS
    while not done():
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}"
        if worker is not None:
            assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def audited_run(admin) -> AuditRun:
    """An audit run the worker executes to its end."""
    run = audit_run_start(created_by=admin)
    queue_run(run)  # autocommit: queued at once
    wait_for(lambda: AuditRun.objects.get(pk=run.pk).is_over, "the audit run to finish")
    run.refresh_from_db()
    assert run.status == RunStatus.FINISHED, run.error
    assert set(run.units.values_list("status", flat=True)) == {AuditUnit.Status.DONE}
    return run


def classifier_flags(run):
    return MemoryFlag.objects.filter(case__run=run, source=MemoryFlag.Source.CLASSIFIER)


def results(run):
    return ClassifierResult.objects.filter(run=run, criterion=CRITERION)


def verdicts(run) -> int:
    return results(run).exclude(verdict=ClassifierResult.Verdict.FAILED).count()


def assert_each_memory_once(run, total: int):
    """Every memory has one verdict, each from its own stored call, whose tokens count
    towards its character's unit."""
    rows = list(results(run).select_related("call"))
    assert len(rows) == total
    assert len({r.memory_id for r in rows}) == total, "a memory got two verdicts"
    assert all(r.verdict == ClassifierResult.Verdict.REJECTS for r in rows)
    assert all(r.call is not None and r.call.ok for r in rows)
    assert len({r.call_id for r in rows}) == total
    calls = AuditCall.objects.filter(run=run)
    assert sum(u.tokens_in for u in run.units.all()) == sum(c.tokens_in for c in calls)


def test_a_worker_killed_mid_classification_loses_and_duplicates_nothing(
    celery_worker_factory, fake_server, classifier_configured
):
    fake_server.latency_s = 0.6  # calls are in flight when the worker dies
    env = {**classifier_env(fake_server.base_url("openai")), **REDELIVERY}
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="doomed")
    total = corpus(characters=2, memories=3)
    admin = UserFactory(roles=[Role.ADMIN])
    run = audited_run(admin)

    assert classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin) == total
    wait_for(
        lambda: 1 <= results(run).count() < total and fake_server.in_flight > 0,
        "some verdicts and calls in flight",
        worker,
    )
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    assert results(run).count() < total

    celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="replacement")
    wait_for(lambda: verdicts(run) == total, "every memory's verdict")
    time.sleep(1.5)  # a late redelivery would show now
    assert_each_memory_once(run, total)
    assert not classifier_flags(run).exists()


def test_a_redis_restart_mid_classification_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, fake_server, classifier_configured
):
    fake_server.latency_s = 0.6
    env = {
        **classifier_env(fake_server.base_url("openai")),
        **REDELIVERY,
        "CELERY_BROKER_URL": own_redis.url,
    }

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="redis")

    worker = start_worker()
    total = corpus(characters=2, memories=3)
    admin = UserFactory(roles=[Role.ADMIN])
    run = audited_run(admin)

    classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin)
    wait_for(lambda: 1 <= results(run).count() < total, "some verdicts, some queued", worker)
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(2)  # the worker notices the broker is gone and keeps retrying
    own_redis.start()

    # A worker that lost its connection while acking exits; compose restarts it, so do we.
    deadline = time.monotonic() + WAIT_SECONDS
    while verdicts(run) < total:
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s: {results(run).count()}"
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.3)
    time.sleep(1.5)
    assert_each_memory_once(run, total)


def test_output_that_is_no_json_fails_each_call_with_its_reason_and_a_retry_completes(
    celery_worker_factory, fake_server, provider, classifier_configured
):
    provider.broken = True
    env = classifier_env(fake_server.base_url("openai"))
    celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="bad-output")
    total = corpus(characters=1, memories=2)
    admin = UserFactory(roles=[Role.ADMIN])
    run = audited_run(admin)

    classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin)
    wait_for(lambda: results(run).count() == total, "every call to fail")
    for result in results(run).select_related("call"):
        assert result.verdict == ClassifierResult.Verdict.FAILED
        assert not result.call.ok and result.call.error_kind
        assert result.rationale.startswith(result.call.error_kind)  # the reason, named
        assert "Sure!" in result.call.raw_response  # what the model said is kept
    assert not classifier_flags(run).exists()  # nothing half-stored

    provider.broken = False  # the provider is fixed: asking again asks only the failed
    assert classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin) == total
    wait_for(lambda: verdicts(run) == total, "every verdict")
    assert_each_memory_once(run, total)
    failed_calls = AuditCall.objects.filter(run=run, ok=False).count()
    assert failed_calls == total  # the failed calls stay on record


def test_an_unreachable_provider_fails_each_call_naming_it_and_a_retry_completes(
    celery_worker_factory, fake_server, classifier_configured
):
    closed = f"http://127.0.0.1:{free_port()}/v1"
    worker = celery_worker_factory(
        extra_env=classifier_env(closed), pool="threads", concurrency=2, name="unreachable"
    )
    total = corpus(characters=1, memories=2)
    admin = UserFactory(roles=[Role.ADMIN])
    run = audited_run(admin)

    classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin)
    wait_for(lambda: results(run).count() == total, "every call to fail")
    for result in results(run).select_related("call"):
        assert result.verdict == ClassifierResult.Verdict.FAILED
        assert not result.call.ok and result.call.tokens_in == 0
        assert "connect" in f"{result.call.error_kind} {result.call.error_message}".lower()
        assert result.rationale.startswith(result.call.error_kind)
    assert not classifier_flags(run).exists()
    assert not fake_server.requests

    os.killpg(worker.pid, signal.SIGTERM)  # the provider is back: a worker that reaches it
    worker.wait(timeout=30)
    celery_worker_factory(
        extra_env=classifier_env(fake_server.base_url("openai")),
        pool="threads",
        concurrency=2,
        name="reachable",
    )
    assert classifier_run_start(run_id=run.pk, criterion=CRITERION, actor=admin) == total
    wait_for(lambda: verdicts(run) == total, "every verdict")
    assert_each_memory_once(run, total)
