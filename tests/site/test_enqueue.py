"""core.tasks.enqueue_on_commit: the one way every workflow queues Celery
work, by the task's registered name. A worker must only see committed rows, and a broker
outage must leave the rows resumable and tell the person what was saved but not queued."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery import shared_task
from kombu.exceptions import OperationalError

from core import tasks as core_tasks
from core.tasks import enqueue_on_commit

ROOT = Path(__file__).resolve().parents[2]


class RecordingTask:
    """Stands in for a Celery task's ``delay``: records calls; can fail like a broker that
    is down (kombu raises OperationalError when it cannot connect)."""

    def __init__(self, fail_after: int | None = None):
        self.sent: list[tuple] = []
        self.fail_after = fail_after

    def delay(self, *args):
        if self.fail_after is not None and len(self.sent) >= self.fail_after:
            raise OperationalError("connection refused")
        self.sent.append(args)


@pytest.fixture
def registered(monkeypatch):
    """``registered("name", task)``: the task ``enqueue_on_commit`` finds under ``name``."""
    found: dict[str, object] = {}
    monkeypatch.setattr(core_tasks, "registered_task", found.__getitem__)
    return found.__setitem__


@pytest.mark.django_db
def test_nothing_is_sent_before_the_transaction_commits(
    django_capture_on_commit_callbacks, registered
):
    task = RecordingTask()
    registered("import", task)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        enqueue_on_commit("import", 7, what="Import job 7")
    assert task.sent == []
    for callback in callbacks:
        callback()
    assert task.sent == [(7,)]


@pytest.mark.django_db
def test_calls_send_one_message_per_argument_tuple_in_order(
    django_capture_on_commit_callbacks, registered
):
    task = RecordingTask()
    registered("run", task)
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit("run", what="Run 3", calls=[(1,), (2,), (3, "x")])
    assert task.sent == [(1,), (2,), (3, "x")]


@pytest.mark.django_db
def test_a_broker_outage_names_what_was_saved_but_not_queued(
    django_capture_on_commit_callbacks, registered
):
    task = RecordingTask(fail_after=1)
    registered("audit", task)
    told: list[str] = []
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit(
            "audit", what="Audit run 5", calls=[(1,), (2,)], on_unavailable=told.append
        )
    assert task.sent == [(1,)]
    assert len(told) == 1
    assert told[0].startswith("Audit run 5 is saved but could not be queued")
    assert "broker" in told[0]


@pytest.mark.django_db
def test_a_broker_outage_without_a_listener_does_not_raise(
    django_capture_on_commit_callbacks, registered
):
    task = RecordingTask(fail_after=0)
    registered("report", task)
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit("report", 9, what="Baseline report 9")
    assert task.sent == []


RAN: list[tuple] = []


@shared_task(name="tests.site.record_a_call")
def record_a_call(*args):
    RAN.append(args)
    return len(args)


@pytest.mark.django_db
def test_eager_mode_runs_a_task_queued_by_name_in_process(django_capture_on_commit_callbacks):
    """``send_task`` would ignore ``task_always_eager`` (the demo, many tests): the task
    is looked up by name and sent through ``delay``, which honours it."""
    from heartbench_site.celery import app

    RAN.clear()
    app.conf.task_always_eager = True
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit("tests.site.record_a_call", 1, "x", what="A call")
    assert RAN == [(1, "x")]


def test_a_process_that_imported_no_task_module_finds_every_task_by_name():
    """A web process or a management command queues by name without having imported any
    ``celery_tasks`` module: the app's task modules are imported on the first lookup."""
    code = (
        "import django, sys; django.setup()\n"
        "assert not [m for m in sys.modules if m.endswith('.celery_tasks')]\n"
        "from core.tasks import registered_task\n"
        "print(registered_task('humanbaseline.compute_report').name)\n"
    )
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="heartbench_site.settings.test")
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "humanbaseline.compute_report"


@pytest.mark.django_db
def test_an_unknown_task_name_fails_before_the_commit(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with pytest.raises(KeyError):
            enqueue_on_commit("no.such.task", 1, what="Nothing")
    assert callbacks == []
