"""The worker's side of the stored reports: one thin task over the service."""

from celery import shared_task

from .services import compute_report


@shared_task(name="core.compute_stored_report")
def compute_stored_report(name: str, key: str = "") -> None:
    compute_report(name, key)
