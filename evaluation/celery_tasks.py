"""Celery tasks of evaluation runs: they take ids and call a service.

One task per item, ``acks_late``: a task whose worker died is redelivered to another,
and the service stores at most one response per item (see
``services.evaluation_prediction_execute``), so redelivery costs a call, never a row.
"""

import logging

from celery import shared_task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

logger = logging.getLogger(__name__)


@shared_task(name="evaluation.execute_prediction", acks_late=True)
def execute_prediction(prediction_id: int) -> str:
    from .services import evaluation_prediction_execute

    return evaluation_prediction_execute(prediction_id=prediction_id).status


def dispatch_predictions(prediction_ids: list[int]) -> None:
    """Queue the items once the caller's transaction commits, so a worker can read them."""

    def send():
        for prediction_id in prediction_ids:
            try:
                execute_prediction.delay(prediction_id)
            except BrokerUnavailable:
                logger.warning("evaluation item %s not queued: broker unreachable", prediction_id)
                return

    transaction.on_commit(send)
