"""Celery tasks of the corpus app: they take ids and call a service."""

from celery import shared_task

from annotation.corpus_import import services


@shared_task(name="annotation.run_import_job")
def run_import_job(job_id: int) -> str:
    """Import an uploaded job's files. Redelivery is harmless: a finished job is left
    as it is (see ``services.import_job_run``)."""
    return services.import_job_run(job_id=job_id).status


@shared_task(name="annotation.execute_generation_unit", acks_late=True)
def execute_generation_unit(unit_id: int) -> str:
    """Run one generation unit's remaining stages. Idempotent: a redelivered task (after
    a worker was killed, say) resumes at the stage the unit reached and never creates a
    second candidate (see ``generation_services.generation_unit_execute``)."""
    from annotation.generation.services import generation_unit_execute

    return generation_unit_execute(unit_id=unit_id).status
