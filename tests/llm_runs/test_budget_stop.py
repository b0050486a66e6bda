"""A run's budget and the lab's monthly cap per provider (issue #36): a run whose
recorded cost reaches its budget stops taking up units, keeps what it finished, and a
resume finishes it without running anything twice. Through a real Celery worker over
Redis, against the fake provider on loopback."""

import time
from decimal import Decimal

import pytest

from annotation.generation.models import Candidate, GenerationRun, LlmCallRecord
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_resume,
    generation_run_start,
)
from tests.factories import UserFactory
from tests.generation.helpers import frozen_character, scenario, worker_env

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 180
Status = GenerationRun.Status
# The worker's prices: high enough that one unit costs more than a cent.
PRICES = {"PRICE_IN": "3000", "PRICE_OUT": "15000", "ACTIVATION_PRICE_IN": "1000"}


def priced_env(server) -> dict:
    env = worker_env(server, timeout=2.0)
    for family in ("CLAUDE", "GPT", "GEMINI"):
        env.update({f"HEARTBENCH_{family}_{k}": v for k, v in PRICES.items()})
        env[f"HEARTBENCH_{family}_ACTIVATION_PRICE_OUT"] = "5000"
    return env


def corpus():
    for n in (1, 2):
        frozen_character(f"CHAR_0{n}", ages=[6, 7, 8, 9])
    for n in (1, 2, 3):
        scenario(f"SCN_SCHOOL_AGE_{n}", age=10)


def wait_for(run, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        run.refresh_from_db()
        if done(run):
            return run
        assert time.monotonic() < deadline, (
            f"waited {WAIT_SECONDS}s for {what}: {generation_run_progress(run_id=run.pk)}"
        )
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def settled(run) -> bool:
    """The run stopped and no unit is held by a worker any more."""
    held = run.units.exclude(status__in=("pending", "succeeded", "failed", "cancelled"))
    return run.status == Status.STOPPED_AT_BUDGET and not held.exists()


def assert_nothing_lost_or_twice(run):
    """Every unit is either done once (one candidate, one response call) or still
    waiting with no call made."""
    for unit in run.units.all():
        candidates = Candidate.objects.filter(unit_id=unit.pk).count()
        responses = LlmCallRecord.objects.filter(unit=unit, stage="response").count()
        if unit.status == "succeeded":
            assert (candidates, responses, unit.attempts) == (1, 1, 1), unit.pk
        else:
            assert unit.status == "pending", (unit.pk, unit.status)
            assert (candidates, unit.calls.count(), unit.attempts) == (0, 0, 0), unit.pk


def test_a_run_stops_at_its_budget_and_a_resume_finishes_it(
    celery_worker_factory, providers, fake_server
):
    worker = celery_worker_factory(extra_env=priced_env(fake_server))
    corpus()
    run = generation_run_create(user=UserFactory(), families=["gpt"], budget_usd="0.01")
    assert run.budget_usd == Decimal("0.01")

    generation_run_start(run_id=run.pk)
    wait_for(run, settled, worker, "the run to stop at its budget")

    spent = sum(u.cost_usd for u in run.units.all())
    done = run.units.filter(status="succeeded").count()
    assert spent >= Decimal("0.01")
    # One unit costs more than the budget: the solo worker took up one, then stopped.
    assert done == 1
    assert run.units.filter(status="pending").count() == 5
    assert "budget of $0.01" in run.stop_reason
    assert_nothing_lost_or_twice(run)

    # A resume that would stop again at once is refused, saying why.
    with pytest.raises(GenerationError, match="would stop again"):
        generation_run_resume(run_id=run.pk, budget_usd="0.01")

    generation_run_resume(run_id=run.pk, budget_usd=None)
    wait_for(run, lambda r: r.status == Status.FINISHED, worker, "the resumed run to finish")

    assert run.budget_usd is None and run.stop_reason == ""
    assert Candidate.objects.filter(run=run).count() == 6
    assert_nothing_lost_or_twice(run)
