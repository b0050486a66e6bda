"""Judge runs through a real Celery worker process over Redis, the judge answering from
the fake provider on loopback (its DemoResponder), as in production but offline."""

import threading
import time

import pytest

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.services.runs import (
    judge_run_cancel,
    judge_run_create,
    judge_run_resume,
    judge_run_start,
)
from core.providers import clear_client_cache
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from llm.testing.replies import server_error
from tests.generation.helpers import family_settings, worker_env

from .helpers import judged_pairs, letter_of, sent_request, shown_block

WAIT_SECONDS = 180
pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


class Judge:
    """The demo judge, except that it answers 500 to every prompt about ``broken``
    characters (a provider down for those calls) and counts what it is asked."""

    def __init__(self):
        self.demo = DemoResponder(seed=0)
        self.broken: set[str] = set()
        self.flaky = 0  # this many first requests answer 500 (the client retries them)
        self.requests = 0
        self._lock = threading.Lock()

    def __call__(self, req):
        user = "\n".join(text for role, text in req.turns() if role == "user")
        with self._lock:
            self.requests += 1
            broken = any(f"## Character {key}\n" in user for key in self.broken)
            if self.flaky:
                self.flaky -= 1
                broken = True
        return server_error(500) if broken else self.demo(req)


@pytest.fixture
def judge():
    return Judge()


@pytest.fixture
def server(judge):
    with FakeProviderServer(responder=judge, latency_s=0.0) as server:
        yield server


@pytest.fixture
def providers(settings, server):
    settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, timeout=2.0, max_retries=1)
    yield
    clear_client_cache()


def wait_for(run, done, worker, what="the run to finish"):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        statuses = list(run.calls.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited for {what}: {run.status} {statuses}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def over(run):
    return run.status in (
        JudgeRun.Status.FINISHED,
        JudgeRun.Status.FINISHED_WITH_FAILURES,
        JudgeRun.Status.CANCELLED,
    )


def launch(pairs, *, orders=2, user=None):
    run = judge_run_create(
        user=user,
        name="GPT judge",
        provider_family="gpt",
        seed=11,
        orders_per_pair=orders,
        pair_ids=[p.pk for p in pairs],
    )
    judge_run_start(run_id=run.pk)
    return run


def test_a_run_records_every_call_and_maps_each_letter_back(
    celery_worker_factory, providers, server, judge
):
    pairs, people_ = judged_pairs(2)
    judge.flaky = 1  # the first request fails once: the client retries it
    worker = celery_worker_factory(extra_env=worker_env(server, timeout=2.0, max_retries=1))
    run = launch(pairs, orders=3, user=people_["admin"])
    wait_for(run, over, worker)
    assert run.status == JudgeRun.Status.FINISHED and run.finished_at
    calls = list(run.calls.select_related("verdict__selected_candidate"))
    assert sorted((c.pair_id, c.order_index) for c in calls) == sorted(
        (p.pk, i) for p in pairs for i in range(3)
    )
    for pair in pairs:
        orders = [c.permutation for c in calls if c.pair_id == pair.pk]
        assert len({tuple(o) for o in orders}) == 3, "three different orders per pair"
    for call in calls:
        assert call.status == JudgeCall.Status.SUCCEEDED and call.attempts == 1
        (record,) = call.records.all()
        assert record.ok and record.request["model"] == "fake-gpt-response"
        assert record.raw_response and record.parsed["selected_letter"] in "ABC"
        # The call's totals are its one record's tokens.
        assert call.tokens_in == record.tokens_in > 0 and call.tokens_out == record.tokens_out
        verdict = call.verdict
        # The letter the judge chose is the candidate its prompt showed under that letter.
        assert letter_of(call, verdict.selected_candidate_id) == verdict.selected_letter
        block = shown_block(call, verdict.selected_letter)
        assert verdict.selected_candidate.final_decision in block
        for other in set(call.permutation) - {verdict.selected_candidate_id}:
            assert letter_of(call, other) != verdict.selected_letter
    assert JudgeVerdict.objects.count() == 6
    assert judge.requests == 7, "six calls, one retried within its call"


def test_a_cancelled_run_stops_and_resumes_to_the_end(celery_worker_factory, providers, server):
    pairs, _ = judged_pairs(3)
    server.latency_s = 0.5  # slow enough to cancel in the middle
    worker = celery_worker_factory(extra_env=worker_env(server, timeout=5.0, max_retries=1))
    run = launch(pairs, orders=2)
    wait_for(run, lambda r: r.calls.filter(status="succeeded").exists(), worker, "a first verdict")
    judge_run_cancel(run_id=run.pk)
    # Cancelling until the calls in flight have ended, then cancelled.
    wait_for(run, lambda r: r.status == JudgeRun.Status.CANCELLED, worker, "calls in flight")
    assert not run.calls.filter(status="running").exists()
    cancelled = run.calls.filter(status=JudgeCall.Status.CANCELLED).count()
    assert cancelled > 0, "the calls still waiting were cancelled"
    kept = dict(run.calls.filter(status="succeeded").values_list("pk", "verdict__pk"))
    server.latency_s = 0.0
    judge_run_resume(run_id=run.pk)
    wait_for(run, over, worker)
    assert run.status == JudgeRun.Status.FINISHED
    assert run.calls.filter(status="succeeded").count() == 6
    # The verdicts from before the cancel are the same rows, not asked again.
    assert dict(run.calls.filter(pk__in=kept).values_list("pk", "verdict__pk")) == kept
    assert set(run.calls.filter(pk__in=kept).values_list("attempts", flat=True)) == {1}


def test_a_failed_call_is_recorded_and_succeeds_when_resumed(
    celery_worker_factory, providers, server, judge
):
    pairs, _ = judged_pairs(2)
    broken = pairs[0].character.key
    judge.broken.add(broken)
    worker = celery_worker_factory(extra_env=worker_env(server, timeout=2.0, max_retries=1))
    run = launch(pairs, orders=1)
    wait_for(run, over, worker)
    assert run.status == JudgeRun.Status.FINISHED_WITH_FAILURES
    failed = run.calls.get(pair=pairs[0])
    assert failed.status == JudgeCall.Status.FAILED and failed.attempts == 1
    assert failed.error_kind == "server_error", failed.error_kind
    assert "no valid answer" in failed.error_message
    (record,) = failed.records.all()
    assert not record.ok and record.error_kind == "server_error"
    assert sent_request(failed)["user"].startswith(f"## Character {broken}")
    assert not JudgeVerdict.objects.filter(call=failed).exists()
    assert run.calls.get(pair=pairs[1]).status == JudgeCall.Status.SUCCEEDED
    judge.broken.clear()
    judge_run_resume(run_id=run.pk)
    wait_for(run, over, worker)
    failed.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert failed.status == JudgeCall.Status.SUCCEEDED and failed.attempts == 2
    assert failed.error_message == "" and failed.verdict.selected_letter in "ABC"
    # Both model calls are kept: the failed one and the one that answered.
    assert list(failed.records.values_list("ok", flat=True)) == [False, True]
