"""A run on real `celery worker` processes over Redis, with the fake provider on
loopback: SIGKILL the worker mid-run, start another, and every item ends with exactly
one stored response."""

import itertools
import os
import signal
import threading
import time

import pytest

from evaluation import services
from evaluation.models import EvaluationPrediction, EvaluationRun
from llm.testing.replies import Reply

from .conftest import build_corpus, fake_env

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
WAIT_SECONDS = 180


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.1)


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
        return Reply(value={"decision_choice": "C"}, latency_s=60.0 if held else 0.1)

    fake_model.responder = responder
    env = {
        **fake_env(fake_model),
        # redeliver a dead worker's tasks after 3 s, looking every second
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        # a worker killed while holding the restore mutex must not block the others
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }
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
    assert sorted(rows.values_list("item_id", flat=True)) == sorted(i.pk for i in corpus["items"])
    assert set(rows.values_list("status", "choice")) == {("answered", "C")}
    assert all(p.attempts >= 2 for p in rows.filter(pk__in=interrupted))
    # items answered before the kill were never asked again
    prompts = [r.turns()[0][1] for r in fake_model.requests]
    for p in answered_at_kill:
        asked = [
            t
            for t in prompts
            if f"Character ID: {p.item.character.key}\n" in t
            and f"Scenario: {p.item.scenario.name}\n" in t
        ]
        assert len(asked) == 1, p.item.question_id
    # one retrieval set per item, shared by any redelivery
    assert rows.values("retrieval_set").distinct().count() == 16
