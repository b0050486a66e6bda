"""Faults during an evaluation run, through real Celery workers and the fake provider
server on loopback (issue #33):

- a worker SIGKILLed mid-run, then a new worker: every item ends with exactly one
  stored response, and items answered before the kill are never asked again;
- the broker (Redis) restarts while items are in flight: the run finishes, nothing lost
  or answered twice;
- the provider sends back a body that is not a provider response: the item fails with
  the reason, nothing of an answer is stored, and a retry once the provider is fixed
  answers it. A model answer that breaks the answer schema is not a fault: it is the
  item's one retained response, graded invalid (App. I, L.1), and never asked again;
- the provider is unreachable (a closed port): the items fail naming the connection,
  nothing of an answer is stored, and a retry once it listens again answers them.
"""

import itertools
import os
import signal
import threading
import time

import pytest

from evaluation import services
from evaluation.models import EvaluationError, EvaluationPrediction, EvaluationRun
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import Reply, malformed_body
from tests.evaluation import conftest as evaluation_fixtures
from tests.evaluation.conftest import build_corpus, fake_env

# The evaluation tests' fixtures: an admin, the fake provider as evaluation model "fake".
role_groups = evaluation_fixtures.role_groups
admin_user = evaluation_fixtures.admin_user
fake_server = evaluation_fixtures.fake_server
fake_model = evaluation_fixtures.fake_model

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]
WAIT_SECONDS = 180
#: A dead worker's tasks are sent again after 3 s, looked for every second.
REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "3",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
    # a worker killed while holding the restore mutex must not block the others
    "CELERY_UNACKED_MUTEX_EXPIRE": "2",
}
ANSWER = {"decision_choice": "C"}
Status = EvaluationPrediction.Status


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.1)


def over(run):
    return run.is_over


def user_text(req) -> str:
    return "\n".join(text for role, text in req.turns() if role == "user")


def assert_one_response_per_item(run, items):
    rows = EvaluationPrediction.objects.filter(run=run)
    assert sorted(rows.values_list("item_id", flat=True)) == sorted(i.pk for i in items)
    for p in rows:
        calls = list(p.calls.all())
        if p.status == Status.ANSWERED:
            # the answer is the text of one call the prediction made, and its tokens
            # add up every call it made
            assert p.raw_response and any(c.ok for c in calls), p.pk
            assert p.tokens_in == sum(c.tokens_in for c in calls), p.pk
        if p.status == Status.FAILED:
            assert p.error_kind and p.error_message, f"prediction {p.pk} failed without a reason"


def test_killing_the_worker_mid_run_loses_and_duplicates_nothing(
    celery_worker_factory, fake_model, admin_user
):
    # The first three requests are answered at once; later ones are held for a minute
    # until the worker is dead, so items are surely in flight when it dies (a fixed
    # latency let the in-flight items finish between the look and the kill).
    asked = itertools.count(1)
    killed = threading.Event()

    def responder(req):
        held = not killed.is_set() and next(asked) > 3
        return Reply(value=ANSWER, latency_s=60.0 if held else 0.1)

    fake_model.responder = responder
    env = {**fake_env(fake_model), **REDELIVERY}
    corpus = build_corpus(n_characters=4, n_scenarios=4)
    doomed = celery_worker_factory(extra_env=env, pool="threads", concurrency=4, name="doomed")
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting="naive_rag", items=None
    )
    services.evaluation_run_start(run_id=run.pk)  # autocommit: queued at once

    def some_done_some_in_flight(run):
        statuses = list(run.predictions.values_list("status", flat=True))
        return statuses.count("answered") >= 2 and statuses.count("running") >= 1

    wait_for(run, some_done_some_in_flight, doomed, "items in flight")
    killed.set()
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=10)
    interrupted = set(run.predictions.filter(status="running").values_list("pk", flat=True))
    assert interrupted
    answered_at_kill = list(
        run.predictions.filter(status="answered").select_related(
            "item__character", "item__scenario"
        )
    )

    replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=4)
    wait_for(run, lambda r: r.status == EvaluationRun.Status.FINISHED, replacement, "the run")

    rows = EvaluationPrediction.objects.filter(run=run)
    assert rows.count() == len(corpus["items"]) == 16
    assert_one_response_per_item(run, corpus["items"])
    assert set(rows.values_list("status", "choice")) == {("answered", "C")}
    assert all(p.attempts >= 2 for p in rows.filter(pk__in=interrupted))
    # items answered before the kill were never asked again: one call, one request
    prompts = [user_text(r) for r in fake_model.requests]
    for p in answered_at_kill:
        asked = [
            t
            for t in prompts
            if f"Character ID: {p.item.character.key}\n" in t
            and f"Scenario: {p.item.scenario.name}\n" in t
        ]
        assert len(asked) == 1, p.item.question_id
        assert p.calls.count() == 1, p.item.question_id
    # one retrieval set per item, shared by any redelivery
    assert rows.values("retrieval_set").distinct().count() == 16


def test_a_redis_restart_mid_run_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, fake_model, admin_user
):
    fake_model.responder = lambda req: Reply(value=ANSWER)
    fake_model.latency_s = 1.0  # items are in flight when the broker goes away
    env = {**fake_env(fake_model), **REDELIVERY, "CELERY_BROKER_URL": own_redis.url}

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=3, name="redis")

    worker = start_worker()
    corpus = build_corpus(n_characters=4, n_scenarios=3)
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting="no_retrieval", items=None
    )
    services.evaluation_run_start(run_id=run.pk)

    def some_done_some_waiting(run):
        statuses = list(run.predictions.values_list("status", flat=True))
        return statuses.count(Status.ANSWERED) >= 1 and statuses.count(Status.PENDING) >= 3

    wait_for(run, some_done_some_waiting, worker, "items done and items queued")
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(2)  # the worker notices the broker is gone and keeps retrying
    own_redis.start()

    # A worker can exit when its connection goes away under a thread's ack; production
    # restarts it (restart: unless-stopped), and so does this test.
    deadline = time.monotonic() + WAIT_SECONDS
    while not over(run):
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for the run"
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.5)
        run.refresh_from_db()
    assert run.status == EvaluationRun.Status.FINISHED
    assert run.predictions.count() == len(corpus["items"]) == 12
    assert set(run.predictions.values_list("status", "choice")) == {(Status.ANSWERED, "C")}
    assert_one_response_per_item(run, corpus["items"])


def test_bad_provider_output_fails_the_item_with_its_reason_and_a_retry_answers_it(
    celery_worker_factory, fake_model, admin_user
):
    corpus = build_corpus(n_characters=4, n_scenarios=1)
    off_schema = corpus["items"][0]
    broken = threading.Event()
    broken.set()

    def responder(req):
        if f"Character ID: {off_schema.character.key}\n" in user_text(req):
            return Reply(value={"decision": "none of these"})  # no decision_choice
        return malformed_body() if broken.is_set() else Reply(value=ANSWER)

    fake_model.responder = responder
    worker = celery_worker_factory(extra_env=fake_env(fake_model), pool="threads", concurrency=2)
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting="no_retrieval", items=None
    )
    services.evaluation_run_start(run_id=run.pk)
    wait_for(run, over, worker, "the run")

    assert run.status == EvaluationRun.Status.FINISHED_WITH_FAILURES
    failed = run.predictions.filter(status=Status.FAILED)
    assert failed.count() == 3
    for p in failed:
        assert p.error_kind == "malformed_response" and p.error_message
        # nothing of an answer is stored; the call that failed is on record
        assert (p.choice, p.parse_path, p.parsed) == ("", "", None)
        (call,) = p.calls.all()
        assert not call.ok and call.error_kind == "malformed_response"
    # The off-schema answer is the item's response, graded invalid, with the reason.
    invalid = run.predictions.get(item=off_schema)
    assert invalid.status == Status.INVALID and invalid.choice == ""
    assert invalid.error_message

    broken.clear()  # the provider is fixed
    assert services.evaluation_run_retry_failed(run_id=run.pk) == 3
    wait_for(run, over, worker, "the retried run")
    assert run.status == EvaluationRun.Status.FINISHED
    assert set(run.predictions.exclude(pk=invalid.pk).values_list("status", "choice")) == {
        (Status.ANSWERED, "C")
    }
    assert invalid.calls.count() == 1  # a graded answer is never asked again
    with pytest.raises(EvaluationError, match="no failed items"):
        services.evaluation_run_retry_failed(run_id=run.pk)
    assert_one_response_per_item(run, corpus["items"])


def test_an_unreachable_provider_fails_the_items_naming_it_and_a_retry_answers_them(
    celery_worker_factory, admin_user, monkeypatch
):
    with FakeProviderServer() as probe:  # a port that is closed once the probe stops
        port = probe.port
        env = {**fake_env(probe, timeout=2.0)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    corpus = build_corpus(n_characters=4, n_scenarios=1)
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    run = services.evaluation_run_create(
        created_by=admin_user, provider_key="fake", setting="no_retrieval", items=None
    )
    services.evaluation_run_start(run_id=run.pk)
    wait_for(run, over, worker, "the run")

    assert run.status == EvaluationRun.Status.FINISHED_WITH_FAILURES
    assert run.predictions.filter(status=Status.FAILED).count() == 4
    for p in run.predictions.all():
        assert p.error_kind == "connection_error" and p.error_message
        assert (p.choice, p.parse_path, p.raw_response, p.parsed) == ("", "", "", None)
        (call,) = p.calls.all()
        assert not call.ok and call.error_kind == "connection_error"

    with FakeProviderServer(port=port, responder=lambda req: Reply(value=ANSWER)):
        assert services.evaluation_run_retry_failed(run_id=run.pk) == 4
        wait_for(run, over, worker, "the retried run")
    assert run.status == EvaluationRun.Status.FINISHED
    assert set(run.predictions.values_list("status", "choice")) == {(Status.ANSWERED, "C")}
    assert all(p.calls.count() == 2 for p in run.predictions.all())
    assert_one_response_per_item(run, corpus["items"])
