"""Celery tasks of the human baseline: they take ids and call a service."""

from celery import shared_task

from humanbaseline import services


@shared_task(name="humanbaseline.compute_report")
def compute_report(report_id: int) -> str:
    return services.report_compute(report_id=report_id).status
