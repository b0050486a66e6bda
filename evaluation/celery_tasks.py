"""Celery tasks of evaluation runs: they take ids and call a service.

One task per item, ``acks_late``: a task whose worker died is redelivered to another,
and the service stores at most one response per item (see
``services.evaluation_prediction_execute``), so redelivery costs a call, never a row.
"""

from celery import shared_task

from core.tasks import resend_when_stranded
from evaluation.services import FLOW, evaluation_prediction_execute


@shared_task(name="evaluation.execute_prediction", acks_late=True)
def execute_prediction(prediction_id: int) -> str:
    return evaluation_prediction_execute(prediction_id=prediction_id).status


resend_when_stranded("evaluation.execute_prediction", FLOW.stranded_units)
