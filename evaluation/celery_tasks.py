"""Celery tasks of evaluation runs: they take ids and call a service.

One task per item, ``acks_late``: a task whose worker died is redelivered to another,
and the service stores at most one response per item (see
``services.evaluation_prediction_execute``), so redelivery costs a call, never a row.
"""

from celery import shared_task

from core.tasks import enqueue_on_commit

from .services import evaluation_prediction_execute


@shared_task(name="evaluation.execute_prediction", acks_late=True)
def execute_prediction(prediction_id: int) -> str:
    return evaluation_prediction_execute(prediction_id=prediction_id).status


def dispatch_predictions(run_id: int, prediction_ids: list[int]) -> None:
    """Queue the items once the caller's transaction commits, so a worker can read them;
    an item the broker did not take stays pending, and resuming the run queues it."""
    enqueue_on_commit(
        execute_prediction,
        what=f"Evaluation run {run_id}",
        calls=[(prediction_id,) for prediction_id in prediction_ids],
    )
