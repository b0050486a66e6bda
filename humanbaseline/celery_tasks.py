"""Celery tasks of the human baseline: they take ids and call a service."""

import logging

from celery import shared_task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

from . import services

logger = logging.getLogger(__name__)


@shared_task(name="humanbaseline.compute_report")
def compute_report(report_id: int) -> str:
    return services.report_compute(report_id=report_id).status


def dispatch_report(report_id: int) -> None:
    """Queue the report once its row is committed, so a worker can read it."""

    def enqueue():
        try:
            compute_report.delay(report_id)
        except BrokerUnavailable:
            logger.warning("baseline report %s not queued: broker unreachable", report_id)

    transaction.on_commit(enqueue)
