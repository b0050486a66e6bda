"""Faults during a judge run through real Celery workers and the fake provider server
(issue #33):

- a worker SIGKILLed mid-run, then a new worker;
- the broker (Redis) restarted mid-run;
- the provider answers with output that is no verdict (not JSON, or JSON that breaks
  the verdict schema);
- the provider is unreachable (nothing listens on its port).

Each time the run completes (at once, or after a retry once the provider is fixed),
nothing is lost, no call yields two verdicts, and a call that failed says why.
"""

import os
import signal
import threading
import time

import pytest

from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun, JudgeVerdict
from adjudication.judging.services.runs import judge_run_resume
from core.providers import clear_client_cache
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from llm.testing.replies import json_reply, non_json_reply
from tests.generation.helpers import family_settings, worker_env
from tests.judging.helpers import judged_pairs
from tests.judging.test_worker import WAIT_SECONDS, launch, over, wait_for
from tests.reliability.faults import free_port

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]

Status = JudgeRun.Status
CallStatus = JudgeCall.Status
# Redeliver a dead worker's (or a lost connection's) tasks after 3 s, looking every second.
REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "3",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
    # a worker killed while holding the restore mutex must not block the others
    "CELERY_UNACKED_MUTEX_EXPIRE": "2",
}


class Judge:
    """The demo judge, or (``bad``) a provider whose answers are no verdict: prose for
    one character, schema-breaking JSON for the others."""

    def __init__(self):
        self.demo = DemoResponder(seed=0)
        self.bad = False
        self.prose_for = ""
        self.requests = 0
        self._lock = threading.Lock()

    def __call__(self, req):
        with self._lock:
            self.requests += 1
        if not self.bad:
            return self.demo(req)
        user = "\n".join(text for role, text in req.turns() if role == "user")
        if self.prose_for and f"## Character {self.prose_for}\n" in user:
            return non_json_reply("I would pick the second one, it feels right.")
        return json_reply({"selected_letter": "Z", "rating": "wonderful"})


@pytest.fixture
def judge():
    return Judge()


@pytest.fixture
def server(judge):
    with FakeProviderServer(responder=judge, latency_s=0.0) as server:
        yield server


@pytest.fixture
def providers(settings, server):
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=3.0, max_retries=0)
    yield
    clear_client_cache()


def assert_complete_once(run, calls: int):
    """Every call has exactly one verdict and a successful model call on record; no
    verdict belongs to a call of another run or to nothing."""
    run.refresh_from_db()
    assert run.status == Status.FINISHED, list(run.calls.values_list("status", "error_message"))
    assert run.calls.count() == calls
    assert set(run.calls.values_list("status", flat=True)) == {CallStatus.SUCCEEDED}
    verdicts = list(JudgeVerdict.objects.filter(call__run=run).values_list("call_id", flat=True))
    assert sorted(verdicts) == sorted(run.calls.values_list("pk", flat=True))
    for call in run.calls.all():
        assert call.records.filter(ok=True).exists(), f"call {call.pk}: no answer on record"
        totals = [r.tokens_in for r in call.records.all()]
        assert call.tokens_in == sum(totals), "the call's totals are its records' sum"


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    celery_worker_factory, providers, server
):
    server.latency_s = 0.4  # calls are in flight when the worker dies
    env = {**worker_env(server, timeout=5.0, max_retries=0), **REDELIVERY}
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="doomed")
    pairs, _ = judged_pairs(3)
    run = launch(pairs, orders=2)

    def some_done_some_in_flight(run):
        statuses = list(run.calls.values_list("status", flat=True))
        return statuses.count(CallStatus.SUCCEEDED) >= 1 and CallStatus.RUNNING in statuses

    wait_for(run, some_done_some_in_flight, worker, "calls in flight")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    in_flight = set(run.calls.filter(status=CallStatus.RUNNING).values_list("pk", flat=True))
    assert in_flight, "the kill caught calls in flight"

    replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    wait_for(run, over, replacement)
    assert_complete_once(run, calls=6)
    # The interrupted calls were delivered again and taken up a second time.
    assert all(c.attempts >= 2 for c in run.calls.filter(pk__in=in_flight))


def test_a_redis_restart_mid_run_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, providers, server
):
    server.latency_s = 0.5  # calls are in flight when the broker goes away
    env = {
        **worker_env(server, timeout=5.0, max_retries=0),
        **REDELIVERY,
        "CELERY_BROKER_URL": own_redis.url,
    }

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="redis")

    worker = start_worker()
    pairs, _ = judged_pairs(3)
    run = launch(pairs, orders=2)

    def some_done_some_waiting(run):
        statuses = list(run.calls.values_list("status", flat=True))
        return statuses.count(CallStatus.SUCCEEDED) >= 1 and statuses.count("pending") >= 2

    wait_for(run, some_done_some_waiting, worker, "calls done and calls queued")
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(2)  # the worker notices the broker is gone and keeps retrying
    own_redis.start()

    # A worker that lost its connection while acking may exit; docker-compose restarts
    # it, and so does this test. Nothing may be lost or duplicated either way.
    deadline = time.monotonic() + WAIT_SECONDS
    while not over(run):
        statuses = list(run.calls.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited: {run.status} {statuses}"
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.5)
        run.refresh_from_db()
    assert_complete_once(run, calls=6)


def test_output_that_is_no_verdict_fails_the_call_with_its_reason_and_a_retry_completes_it(
    celery_worker_factory, providers, server, judge
):
    pairs, _ = judged_pairs(2)
    judge.bad = True
    judge.prose_for = pairs[0].character.key
    worker = celery_worker_factory(extra_env=worker_env(server, timeout=3.0, max_retries=0))
    run = launch(pairs, orders=1)
    wait_for(run, over, worker)
    assert run.status == Status.FINISHED_WITH_FAILURES
    assert not JudgeVerdict.objects.filter(call__run=run).exists(), "no half-stored verdict"
    prose, schema = run.calls.get(pair=pairs[0]), run.calls.get(pair=pairs[1])
    for call in (prose, schema):
        assert call.status == CallStatus.FAILED and call.attempts == 1
        assert call.error_kind and "no valid answer" in call.error_message, call.error_message
        (record,) = call.records.all()
        assert not record.ok and record.parsed is None
        assert (record.error_kind, record.request["user"][:12]) == (
            call.error_kind,
            "## Character",
        )
    assert "pick the second one" in prose.records.get().raw_response
    assert "wonderful" in schema.records.get().raw_response
    assert prose.error_kind != schema.error_kind, "prose and a broken schema are told apart"

    judge.bad = False  # the provider is fixed
    judge_run_resume(run_id=run.pk)
    wait_for(run, over, worker)
    assert_complete_once(run, calls=2)
    for call in run.calls.all():
        assert call.attempts == 2 and (call.error_kind, call.error_message) == ("", "")
        assert list(call.records.values_list("ok", flat=True)) == [False, True]


class Closed:
    """Where a provider would be: a port nothing listens on (yet)."""

    base_url = FakeProviderServer.base_url

    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}"


def test_an_unreachable_provider_fails_the_calls_with_the_reason_and_a_retry_works_once_back(
    celery_worker_factory, settings, judge
):
    port = free_port()
    closed = Closed(port)
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(closed, timeout=2.0, max_retries=0)
    worker = celery_worker_factory(extra_env=worker_env(closed, timeout=2.0, max_retries=0))
    pairs, _ = judged_pairs(2)
    try:
        run = launch(pairs, orders=1)
        wait_for(run, over, worker)
        assert run.status == Status.FINISHED_WITH_FAILURES
        assert not JudgeVerdict.objects.filter(call__run=run).exists(), "nothing half-stored"
        for call in run.calls.all():
            assert call.status == CallStatus.FAILED
            assert call.error_kind == "connection_error", call.error_kind
            assert "connection_error" in call.error_message
            (record,) = call.records.all()
            assert not record.ok and record.raw_response == "" and record.tokens_in == 0
        assert JudgeCallRecord.objects.filter(call__run=run, ok=True).count() == 0

        with FakeProviderServer(responder=judge, port=port):  # the provider is back
            judge_run_resume(run_id=run.pk)
            wait_for(run, over, worker)
        assert_complete_once(run, calls=2)
        assert judge.requests == 2
    finally:
        clear_client_cache()
