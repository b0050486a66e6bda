"""The worker's side of the stored reports: one thin task over the service."""

from celery import shared_task

from core.tasks import resend_when_stranded

from .services import compute_report, stranded_reports


@shared_task(name="core.compute_stored_report")
def compute_stored_report(name: str, key: str = "") -> None:
    compute_report(name, key)


# A report queued while the broker lost its message (a Redis restart) stays pending; a
# worker that (re)connects sends it again (core.tasks.resend_stranded).
resend_when_stranded("core.compute_stored_report", stranded_reports)
