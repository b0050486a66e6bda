"""Queueing Celery work from a request or a service: the one way every workflow does it."""

import logging
from collections.abc import Callable, Iterable

from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

logger = logging.getLogger(__name__)


def enqueue_on_commit(
    task,
    *args,
    what: str,
    on_unavailable: Callable[[str], None] | None = None,
    calls: Iterable[tuple] | None = None,
) -> None:
    """Send ``task.delay(*args)`` once the current transaction commits, so the worker
    reads committed rows (outside a transaction it is sent at once).

    ``calls`` sends one message per argument tuple instead (e.g. one per unit of a run).
    When the broker cannot be reached the rows stay as written (pending, resumable): the
    failure is logged, and ``on_unavailable(message)`` tells the person, naming ``what``
    (e.g. "Import job 12") was saved but not queued.
    """
    batch = list(calls) if calls is not None else [args]

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
