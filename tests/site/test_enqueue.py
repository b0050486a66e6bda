"""core.tasks.enqueue_on_commit: the one way every workflow queues Celery
work. A worker must only see committed rows, and a broker outage must leave the rows
resumable and tell the person what was saved but not queued."""

import pytest
from kombu.exceptions import OperationalError

from core.tasks import enqueue_on_commit


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


@pytest.mark.django_db
def test_nothing_is_sent_before_the_transaction_commits(django_capture_on_commit_callbacks):
    task = RecordingTask()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        enqueue_on_commit(task, 7, what="Import job 7")
    assert task.sent == []
    for callback in callbacks:
        callback()
    assert task.sent == [(7,)]


@pytest.mark.django_db
def test_calls_send_one_message_per_argument_tuple_in_order(django_capture_on_commit_callbacks):
    task = RecordingTask()
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit(task, what="Run 3", calls=[(1,), (2,), (3, "x")])
    assert task.sent == [(1,), (2,), (3, "x")]


@pytest.mark.django_db
def test_a_broker_outage_names_what_was_saved_but_not_queued(django_capture_on_commit_callbacks):
    task = RecordingTask(fail_after=1)
    told: list[str] = []
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit(task, what="Audit run 5", calls=[(1,), (2,)], on_unavailable=told.append)
    assert task.sent == [(1,)]
    assert len(told) == 1
    assert told[0].startswith("Audit run 5 is saved but could not be queued")
    assert "broker" in told[0]


@pytest.mark.django_db
def test_a_broker_outage_without_a_listener_does_not_raise(django_capture_on_commit_callbacks):
    task = RecordingTask(fail_after=0)
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_on_commit(task, 9, what="Baseline report 9")
    assert task.sent == []
