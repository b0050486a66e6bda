"""Import jobs: storing an upload and running it (the import itself is ``importing``).
Every state change of a job is one keyword-only function here.
"""

import logging

from django.db import transaction
from django.utils import timezone

from annotation.corpus_import.importing import import_files
from annotation.corpus_import.models import ImportJob, ImportJobFile
from annotation.corpus_import.problems import ImportRejected

logger = logging.getLogger(__name__)


class ImportJobError(Exception):
    """An import job request that cannot be carried out as asked."""


@transaction.atomic
def import_job_create(
    *, files: list[tuple[str, bytes]], user, as_new_versions: bool = False
) -> ImportJob:
    """Store an upload as a pending job; the caller queues ``run_import_job`` on commit.

    The files travel in the database so a worker on another machine can read them.
    ``as_new_versions``: see ``importing.import_files``.
    """
    if not files:
        raise ImportJobError("Choose at least one file to import.")
    job = ImportJob.objects.create(created_by=user, as_new_versions=as_new_versions)
    ImportJobFile.objects.bulk_create(
        [
            ImportJobFile(job=job, name=name, content=bytes(data), size=len(data))
            for name, data in files
        ]
    )
    return job


def import_job_run(*, job_id: int) -> ImportJob:
    """Run a pending job: mark it running, import its files, store the outcome.

    A rejected import is an outcome, not a failure of the task: its problems are stored
    on the job and the job is marked failed; nothing is raised. A job that already
    finished is returned unchanged, so a redelivered task imports nothing twice. A job
    left ``running`` by a worker that died is run again: the import is one transaction,
    so the lost run wrote nothing.
    """
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().get(pk=job_id)
        if job.status in (ImportJob.Status.SUCCEEDED, ImportJob.Status.FAILED):
            return job
        job.status = ImportJob.Status.RUNNING
        job.started_at = timezone.now()
        job.save(update_fields=["status", "started_at"])
    files = [(f.name, bytes(f.content)) for f in job.files.order_by("pk")]
    try:
        summary = import_files(
            files, source=f"import job {job.pk}", as_new_versions=job.as_new_versions
        )
    except ImportRejected as rejected:
        return _import_job_finish(
            job_id=job.pk,
            status=ImportJob.Status.FAILED,
            errors=[problem.as_dict() for problem in rejected.errors],
        )
    except Exception as exc:
        logger.exception("import job %s crashed", job.pk)
        _import_job_finish(
            job_id=job.pk,
            status=ImportJob.Status.FAILED,
            errors=[{"file": "", "record": "", "field": "", "message": f"internal error: {exc}"}],
        )
        raise
    return _import_job_finish(
        job_id=job.pk, status=ImportJob.Status.SUCCEEDED, summary=summary.as_dict()
    )


@transaction.atomic
def _import_job_finish(*, job_id: int, status: str, summary=None, errors=None) -> ImportJob:
    job = ImportJob.objects.select_for_update().get(pk=job_id)
    job.status = status
    job.summary = summary or {}
    job.errors = errors or []
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "summary", "errors", "finished_at"])
    return job
