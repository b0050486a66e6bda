"""Generation runs through real Celery worker processes over Redis, against the fake
provider on loopback (the worker reads its provider settings from its environment)."""

import os
import signal
import time

import pytest

from annotation.generation.models import Candidate, GenerationRun, GenerationUnit
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import (
    generation_run_create,
    generation_run_retry_failed,
    generation_run_start,
)
from llm.testing.replies import (
    hang,
    json_reply,
    malformed_body,
    non_json_reply,
    rate_limited,
    server_error,
    truncated_body,
    truncated_reply,
)
from tests.factories import UserFactory

from .helpers import PASS, VALID_RESPONSE, frozen_character, scenario, worker_env

WAIT_SECONDS = 180
TIMEOUT_S = 1.0

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def corpus(characters=2, scenarios=2):
    for n in range(1, characters + 1):
        frozen_character(f"CHAR_{n:02d}", ages=[6, 7, 8, 12])
    for n in range(1, scenarios + 1):
        scenario(f"SCN_SCHOOL_AGE_{n}", age=10)


def wait_for(run, done, worker=None, what="the run to finish"):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, (
            f"waited {WAIT_SECONDS}s for {what}: {generation_run_progress(run_id=run.pk)}"
        )
        if worker is not None:
            assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def finished(run):
    return run.status in (
        GenerationRun.Status.FINISHED,
        GenerationRun.Status.FINISHED_WITH_FAILURES,
        GenerationRun.Status.CANCELLED,
    )


def test_a_run_survives_every_fault_kind_through_a_worker(
    celery_worker_factory, providers, fake_server, script
):
    # One fault of each kind on the first try of a response call, then a normal answer:
    # the worker's llm client retries each within its bounds.
    script.faults["response"] = [
        x
        for fault in (
            rate_limited(retry_after=1),
            server_error(500),
            hang(4),
            malformed_body(),
            truncated_body(),
            non_json_reply(),
            truncated_reply(),
            json_reply({**VALID_RESPONSE, "final_decision": ""}),
        )
        for x in (fault, PASS)
    ]
    worker = celery_worker_factory(extra_env=worker_env(fake_server, timeout=TIMEOUT_S))
    corpus()
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])

    generation_run_start(run_id=run.pk)  # queued on commit
    wait_for(run, finished, worker)

    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert Candidate.objects.filter(run=run).count() == 12
    retried = [
        c for u in run.units.all() for c in u.calls.filter(stage="response") if c.attempt_count == 2
    ]
    assert len(retried) == 8
    kinds = {c.details["attempts"][0]["error_kind"] for c in retried}
    assert kinds == {
        "rate_limited",
        "server_error",
        "timeout",
        "malformed_response",
        "truncated_body",
        "invalid_json",
        "output_truncated",
        "schema_invalid",
    }


def test_failed_units_are_retried_through_a_worker(
    celery_worker_factory, providers, fake_server, script
):
    script.always["response"] = server_error(500)
    worker = celery_worker_factory(extra_env=worker_env(fake_server, timeout=TIMEOUT_S))
    corpus()
    run = generation_run_create(user=UserFactory(), families=["gpt"])
    generation_run_start(run_id=run.pk)
    wait_for(run, finished, worker)
    assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES
    assert set(run.units.values_list("error_kind", flat=True)) == {"server_error"}
    assert all("HTTP 500" in u.error_message for u in run.units.all())

    script.always.clear()
    generation_run_retry_failed(run_id=run.pk)
    wait_for(run, finished, worker)

    assert run.status == GenerationRun.Status.FINISHED
    assert Candidate.objects.filter(run=run).count() == 4
    assert set(run.units.values_list("attempts", flat=True)) == {2}


def test_killing_the_worker_mid_run_loses_and_duplicates_nothing(
    celery_worker_factory, providers, fake_server
):
    fake_server.latency_s = 0.3  # units are in flight when the worker dies
    env = {
        **worker_env(fake_server, timeout=5.0),
        # redeliver a dead worker's tasks after 3 s, looking every second
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        # a worker killed while holding the restore mutex must not block the others
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=4, name="doomed")
    corpus(characters=3, scenarios=3)
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=run.pk)

    def some_done_some_in_flight(run):
        statuses = list(run.units.values_list("status", flat=True))
        done = statuses.count(GenerationUnit.Status.SUCCEEDED)
        busy = sum(
            s in (GenerationUnit.Status.SCREENING, GenerationUnit.Status.RESPONDING)
            for s in statuses
        )
        return done >= 3 and busy >= 1

    wait_for(run, some_done_some_in_flight, worker, "units in flight")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    in_flight = set(
        run.units.filter(
            status__in=[
                GenerationUnit.Status.SCREENING,
                GenerationUnit.Status.RERANKING,
                GenerationUnit.Status.RESPONDING,
            ]
        ).values_list("pk", flat=True)
    )
    assert in_flight  # the kill caught units between their stages

    replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=4)
    wait_for(run, finished, replacement)

    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    units = run.units.all()
    assert units.count() == 27
    assert Candidate.objects.filter(run=run).count() == 27
    assert set(Candidate.objects.filter(run=run).values_list("unit_id", flat=True)) == set(
        units.values_list("pk", flat=True)
    )
    # the units the kill interrupted were redelivered and taken up a second time
    assert all(u.attempts >= 2 for u in units.filter(pk__in=in_flight))
