# The MCQ fixtures are imported by name below, so test arguments "redefine" them.
# ruff: noqa: F811
"""Faults during an MCQ screening run through real Celery workers (issue #33), the judge
being the fake provider server over loopback, configured in the worker's environment:

- a worker SIGKILLed while it screens, then a new worker: the run finishes;
- the broker (Redis) restarts while units are queued and in flight;
- the judge answers with text that is not the D.3.1 JSON: the units fail saying why,
  and a retry once it answers properly screens them;
- the judge is unreachable (a closed port): the units fail naming the connection,
  nothing is half stored, and a retry once it is back screens them.

Whatever happens, every unit ends with one result, every item version has one
screening, and every call made is on record.
"""

import time

import pytest

from adjudication.mcq.models import McqItem, McqScreening, McqScreeningRun
from adjudication.mcq.services import item_assembly, screening_runs
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import text_reply
from tests.mcq.conftest import (  # noqa: F401 - the MCQ fixtures, used here by name
    fake_server,
    judge,
    judge_config,
    person,
    references,
    role_groups,
    scenario,
)
from tests.mcq.test_worker import honest_judge
from tests.reliability.faults import free_port

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers"),
]

WAIT_SECONDS = 90
Unit = McqScreening.Status
Run = McqScreeningRun.Status
# A dead worker's unacknowledged tasks come back after 3 s, looked for every second.
REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "3",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
    "CELERY_UNACKED_MUTEX_EXPIRE": "2",
}


def judge_env(base_url: str) -> dict:
    return {
        "HEARTBENCH_MCQ_SCREENER_KIND": "anthropic",
        "HEARTBENCH_MCQ_SCREENER_BASE_URL": base_url,
        "HEARTBENCH_MCQ_SCREENER_MODEL": "fake-judge",
        "HEARTBENCH_MCQ_SCREENER_API_KEY": "test-key",
        "HEARTBENCH_MCQ_SCREENER_MAX_RETRIES": "1",
        "HEARTBENCH_MCQ_SCREENER_TIMEOUT": "3",
        "HEARTBENCH_MCQ_SCREENER_BACKOFF_BASE": "0.01",
        "HEARTBENCH_MCQ_SCREENER_BACKOFF_CAP": "0.05",
    }


def over(run) -> bool:
    run.refresh_from_db()
    return run.status in (Run.FINISHED, Run.FINISHED_WITH_FAILURES, Run.CANCELLED)


def wait_for(run, predicate, worker=None, what="the run to end"):
    deadline = time.monotonic() + WAIT_SECONDS
    while not predicate(run):
        if worker is not None and worker.poll() is not None:
            raise AssertionError(f"the worker exited ({worker.returncode}) waiting for {what}")
        states = list(run.screenings.values_list("status", flat=True))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {states}"
        time.sleep(0.2)


@pytest.fixture
def screening_run(settings, references, person):
    """A started screening run over every complete item of the MCQ fixture's scenario
    (its messages wait in the broker); the web process sees a judge configured."""

    def make(base_url: str):
        settings.HEARTBENCH_MCQ_SCREENER_PROVIDER = judge_config_at(base_url)
        for reference in references.values():
            item_assembly.mcq_item_assemble(
                reference_id=reference.pk, selector=False, dispatch=False
            )
        run = screening_runs.screening_run_for_everything_awaiting(user=person(Role.ADMIN))
        assert run.screenings.count() >= 3
        return run

    return make


def judge_config_at(base_url):
    class Server:
        def base_url(self, kind):
            return base_url

    return judge_config(Server())


def assert_one_result_each(run, *, outcome=McqScreening.Outcome.PASSED):
    units = list(run.screenings.select_related("item", "item_version"))
    for unit in units:
        assert unit.status == Unit.DONE and unit.outcome == outcome, (unit, unit.error_message)
        assert unit.output is not None and unit.calls.filter(ok=True).exists()
        assert unit.tokens_in == sum(c.tokens_in for c in unit.calls.all())
        same_version = McqScreening.objects.filter(item_version=unit.item_version)
        assert same_version.count() == 1, f"{unit.item} version screened twice"
    assert set(McqItem.objects.filter(status="screening").values_list("pk", flat=True)) == set()
    assert McqItem.objects.filter(pk__in=[u.item_id for u in units], status="final").count() == (
        len(units)
    )


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    celery_worker_factory, judge, screening_run
):
    import os
    import signal

    judge.responder = honest_judge
    judge.latency_s = 0.8  # units are in flight when the worker dies
    run = screening_run(judge.base_url("anthropic"))
    env = {**judge_env(judge.base_url("anthropic")), **REDELIVERY}
    worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="doomed")

    def some_in_flight(run):
        return run.screenings.filter(status=Unit.RUNNING).exists()

    wait_for(run, some_in_flight, worker, "a unit in flight")
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    interrupted = set(run.screenings.filter(status=Unit.RUNNING).values_list("pk", flat=True))
    assert interrupted

    replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
    wait_for(run, over, replacement)
    assert run.status == Run.FINISHED
    assert_one_result_each(run)
    # the interrupted units were screened again from the start; the lost call, if the
    # judge answered it, is on record as well
    for unit in run.screenings.filter(pk__in=interrupted):
        assert unit.calls.count() >= 1 and unit.attempts == 1


def test_a_redis_restart_mid_run_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, judge, screening_run
):
    judge.responder = honest_judge
    judge.latency_s = 0.8
    run = screening_run(judge.base_url("anthropic"))
    env = {
        **judge_env(judge.base_url("anthropic")),
        **REDELIVERY,
        "CELERY_BROKER_URL": own_redis.url,
    }

    def start_worker():
        return celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="redis")

    worker = start_worker()
    wait_for(run, lambda r: r.screenings.filter(status=Unit.RUNNING).exists(), worker)
    own_redis.stop()
    assert not own_redis.ping()
    time.sleep(1.5)
    own_redis.start()

    # A worker that lost its broker connection at a bad moment may exit; it is restarted,
    # as docker-compose does.
    deadline = time.monotonic() + WAIT_SECONDS
    while not over(run):
        assert time.monotonic() < deadline, list(run.screenings.values_list("status", flat=True))
        if worker.poll() is not None:
            worker = start_worker()
        time.sleep(0.3)
    assert run.status == Run.FINISHED
    assert_one_result_each(run)


def test_a_judge_answering_nonsense_fails_the_units_and_a_retry_screens_them(
    celery_worker_factory, judge, screening_run
):
    judge.responder = lambda request: text_reply("The item looks fine to me.")
    run = screening_run(judge.base_url("anthropic"))
    worker = celery_worker_factory(extra_env=judge_env(judge.base_url("anthropic")), name="bad")
    wait_for(run, over, worker)

    assert run.status == Run.FINISHED_WITH_FAILURES
    for unit in run.screenings.all():
        assert unit.status == Unit.FAILED
        assert unit.outcome == McqScreening.Outcome.TECHNICAL_FAILURE
        assert unit.error_kind and "3 attempts" in unit.error_message, unit.error_message
        assert unit.output is None and unit.calls.count() == 3
    assert set(
        McqItem.objects.exclude(status="needs_completion").values_list("status", flat=True)
    ) == {"flagged"}

    judge.responder = honest_judge
    screening_runs.screening_run_retry(run_id=run.pk)
    wait_for(run, over, worker)
    assert run.status == Run.FINISHED
    assert_one_result_each(run)


def test_an_unreachable_judge_fails_the_units_and_a_retry_works_once_it_is_back(
    celery_worker_factory, screening_run
):
    port = free_port()  # nothing listens here yet
    base_url = f"http://127.0.0.1:{port}"
    run = screening_run(base_url)
    worker = celery_worker_factory(extra_env=judge_env(base_url), name="unreachable")
    wait_for(run, over, worker)

    assert run.status == Run.FINISHED_WITH_FAILURES
    for unit in run.screenings.all():
        assert unit.status == Unit.FAILED and unit.output is None
        assert "connect" in f"{unit.error_kind} {unit.error_message}".lower(), unit.error_message
        assert not unit.calls.filter(ok=True).exists()
        assert unit.tokens_in == unit.tokens_out == 0

    with FakeProviderServer(port=port, responder=honest_judge):
        screening_runs.screening_run_retry(run_id=run.pk)
        wait_for(run, over, worker)
    assert run.status == Run.FINISHED
    assert_one_result_each(run)
