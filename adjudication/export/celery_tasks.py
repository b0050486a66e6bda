"""Celery task of the export jobs: it takes a job id and calls the service."""

from celery import shared_task

from adjudication.export import jobs
from adjudication.export.models import ExportJob
from core.tasks import resend_when_stranded


@shared_task(name="adjudication.build_export_job", acks_late=True)
def build_export_job(job_id: int) -> str:
    """Build one export job. Idempotent: a redelivered task (its worker was killed)
    builds the same bytes again; a finished job is left as it is."""
    job = jobs.export_job_build(job_id=job_id)
    return job.status if job is not None else "missing"


def _active_jobs():
    """Jobs queued or running: each should have a message in the broker."""
    return ExportJob.objects.filter(status__in=ExportJob.ACTIVE).values_list("pk")


resend_when_stranded("adjudication.build_export_job", _active_jobs)
