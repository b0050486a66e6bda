"""Celery tasks of the human baseline: they take ids and call a service."""

from celery import shared_task

from core.tasks import enqueue_on_commit

from . import services


@shared_task(name="humanbaseline.compute_report")
def compute_report(report_id: int) -> str:
    return services.report_compute(report_id=report_id).status


def dispatch_report(report_id: int) -> None:
    """Queue the report once its row is committed, so a worker can read it."""
    enqueue_on_commit(compute_report, report_id, what=f"Baseline report {report_id}")
