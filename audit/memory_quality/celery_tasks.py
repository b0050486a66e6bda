"""Celery tasks of the memory quality audit: they take ids and call a service.

Both are idempotent: a finished run is left as it is, and a repair attempt already
recorded (or a case no longer under repair) is not made again.
"""

import logging

from celery import shared_task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

from audit.memory_quality import services

logger = logging.getLogger(__name__)


@shared_task(name="audit.run_memory_audit")
def run_memory_audit(run_id: int) -> str:
    return services.audit_run_execute(run_id=run_id).status


@shared_task(name="audit.repair_memory")
def repair_memory(case_id: int) -> bool:
    attempt = services.repair_attempt_run(case_id=case_id)
    return bool(attempt and attempt.passed)


@shared_task(name="audit.classify_memory")
def classify_memory(run_id: int, memory_pk: int, criterion: int) -> str:
    return services.classifier_check(
        run_id=run_id, memory_pk=memory_pk, criterion=criterion
    ).verdict


def _on_commit(task, arg, what: str) -> None:
    def enqueue():
        try:
            task.delay(arg)
        except BrokerUnavailable:
            logger.warning("%s %s not queued: broker unreachable", what, arg)

    transaction.on_commit(enqueue)


def dispatch_audit_run(run_id: int) -> None:
    """Queue the run once its row is committed, so a worker can read it."""
    _on_commit(run_memory_audit, run_id, "audit run")


def dispatch_repair_attempt(case_id: int) -> None:
    _on_commit(repair_memory, case_id, "repair of audit case")


def dispatch_classification(run_id: int, memory_pk: int, criterion: int) -> None:
    def enqueue():
        try:
            classify_memory.delay(run_id, memory_pk, criterion)
        except BrokerUnavailable:
            logger.warning("classification of memory %s not queued: broker unreachable", memory_pk)

    transaction.on_commit(enqueue)
