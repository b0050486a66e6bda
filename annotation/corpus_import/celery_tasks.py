"""Celery tasks of the corpus import: they take ids and call a service."""

from celery import shared_task

from annotation.corpus_import import services


@shared_task(name="annotation.run_import_job")
def run_import_job(job_id: int) -> str:
    """Import an uploaded job's files. Redelivery is harmless: a finished job is left
    as it is (see ``services.import_job_run``)."""
    return services.import_job_run(job_id=job_id).status
