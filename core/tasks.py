"""Queueing Celery work from a request or a service: the one way every workflow does it.

A service queues a task by its registered NAME (``enqueue_on_commit("audit.run_memory_audit",
run.pk, what=...)``), never by importing a ``celery_tasks`` module: the task modules import
the services (each task is a thin wrapper over one service function), the services import
nothing of the task modules, so there is no import cycle between them (Zulip's
``queue_event_on_commit`` is the model). The task modules are listed once, as the Celery
app's ``imports`` (``heartbench_site/celery.py``).
"""

import base64
import json
import logging
from collections.abc import Callable, Iterable
from datetime import timedelta
from importlib import import_module

from celery import current_app, shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerUnavailable

logger = logging.getLogger(__name__)


def registered_task(name: str):
    """The task registered under ``name`` in the current Celery app. A process that has
    not imported the task modules yet (a web process, a management command) imports the
    app's ``imports`` first. Sending through the task object (rather than
    ``send_task``) honours eager mode (``task_always_eager``: the demo, many tests)."""
    app = current_app
    if name not in app.tasks:
        for module in app.conf.imports or ():
            import_module(module)
    return app.tasks[name]


def enqueue_on_commit(
    name: str,
    *args,
    what: str,
    on_unavailable: Callable[[str], None] | None = None,
    calls: Iterable[tuple] | None = None,
) -> None:
    """Send the task registered as ``name`` with ``*args`` once the current transaction
    commits, so the worker reads committed rows (outside a transaction it is sent at once).

    ``calls`` sends one message per argument tuple instead (e.g. one per unit of a run).
    When the broker cannot be reached the rows stay as written (pending, resumable): the
    failure is logged, and ``on_unavailable(message)`` tells the person, naming ``what``
    (e.g. "Import job 12") was saved but not queued.
    """
    batch = list(calls) if calls is not None else [args]
    task = registered_task(name)  # an unknown name fails here, before the commit

    def send() -> None:
        try:
            for call_args in batch:
                task.delay(*call_args)
        except BrokerUnavailable:
            logger.warning("%s saved but not queued: the task broker is unreachable", what)
            if on_unavailable is not None:
                on_unavailable(
                    f"{what} is saved but could not be queued: the task broker is not "
                    "reachable. Start Redis and a Celery worker, then try again."
                )

    transaction.on_commit(send)


# --- re-sending work whose message the broker lost ---------------------------------------
#
# A broker restart can lose a message in flight (Redis pops a message for a worker; the
# broker stops before the worker records it as unacknowledged). The rows say what should
# be queued (a pending unit of a running run), so each worker, when its consumer (re)connects,
# asks for a sweep: every registered task's pending work that has no message waiting or
# unacknowledged in the broker is sent again. A unit sent twice by two sweeps at once is
# harmless (the tasks are idempotent); a unit whose message is still queued is not re-sent.
#
# Work is queued just after its rows commit, so a sweep can find a unit that is pending
# and has no message yet only because its message is on its way: such a unit (written
# less than HEARTBENCH_STRANDED_GRACE_SECONDS ago) is left, and the sweep looks again
# that much later. Sending it at once would run it twice, and pay its calls twice.

#: task name → callable returning (args..., last written) of the work that should be
#: queued now.
STRANDED_SWEEPS: dict[str, Callable[[], Iterable[tuple]]] = {}


def resend_when_stranded(name: str, pending: Callable[[], Iterable[tuple]]) -> None:
    """Register ``pending``: the task ``name``'s work that should be queued now, each as
    its argument tuple followed by when its row was last written."""
    STRANDED_SWEEPS[name] = pending


def _decode(raw) -> tuple[str, tuple] | None:
    """(task name, args) of one kombu Redis message, or None for anything else."""
    try:
        message = json.loads(raw)
        if isinstance(message, list):  # the unacknowledged hash stores [message, exchange, key]
            message = message[0]
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return message["headers"]["task"], tuple(args)
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def broker_messages(app) -> set[tuple[str, tuple]] | None:
    """Every (task, args) waiting in a queue or unacknowledged in the Redis broker; None
    when the broker is not Redis (nothing can be said, so nothing is re-sent)."""
    with app.connection_for_read() as connection:
        channel = connection.default_channel
        client = getattr(channel, "client", None)
        if client is None or not hasattr(channel, "_q_for_pri"):
            return None
        raw = list(client.hvals(channel.unacked_key))
        for queue in {q.name for q in app.amqp.queues.values()} | {app.conf.task_default_queue}:
            for priority in channel.priority_steps:
                raw.extend(client.lrange(channel._q_for_pri(queue, priority), 0, -1))
    return {decoded for item in raw if (decoded := _decode(item)) is not None}


def resend_stranded(app) -> int:
    """Send again every registered task's pending work that has no message and was last
    written over the grace period ago; the count. Work without a message that is younger
    is looked at again by another sweep, queued to run once the grace period has passed."""
    present = broker_messages(app)
    if present is None:
        return 0
    grace = settings.HEARTBENCH_STRANDED_GRACE_SECONDS
    written_before = timezone.now() - timedelta(seconds=grace)
    sent = young = 0
    for name, pending in STRANDED_SWEEPS.items():
        for *args, written_at in pending():
            if (name, tuple(args)) in present:
                continue
            if written_at > written_before:
                young += 1
                continue
            logger.warning("%s%r had no message in the broker: sent again", name, args)
            registered_task(name).delay(*args)
            sent += 1
    if young and not app.conf.task_always_eager:  # eager, the next sweep would run now
        registered_task("heartbench_site.resend_stranded").apply_async(countdown=grace)
    return sent


@shared_task(name="heartbench_site.resend_stranded")
def resend_stranded_task() -> int:
    """The sweep, as a task: each worker queues one when its consumer (re)connects."""
    return resend_stranded(current_app)
