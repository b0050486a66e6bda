"""Export jobs (issue #23): start a build (or get the one of that kind under way), build
it in a Celery worker with its progress saved step by step, store the zip under
``settings.EXPORT_ROOT`` with its size and SHA-256.

A build is idempotent: the same data give a byte-identical zip (fixed entry dates, sorted
keys, deterministic Parquet), so a build a worker restart interrupted is simply run again
(the task's message is redelivered, or re-sent by the stranded-work sweep) and a finished
job's file can be checked against a rebuild by its SHA-256.
"""

import logging
import os
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from adjudication.export.encoding import sha256
from adjudication.export.models import ExportJob
from adjudication.export.services import BUILD_STEPS, build_export, zip_files
from core.tasks import enqueue_on_commit

logger = logging.getLogger(__name__)

# kind -> the zip's folder and download name.
ZIP_NAMES = {
    ExportJob.Kind.FINAL_SET: "heartbench-final-set",
    ExportJob.Kind.STATISTICS: "heartbench-statistics",
}
STORING = "Compressing and storing the zip"


class ExportJobError(ValidationError):
    """A build that cannot be started (an unknown kind, or a start that keeps racing)."""


def export_root() -> Path:
    return Path(settings.EXPORT_ROOT)


def available_kinds() -> list[ExportJob.Kind]:
    return list(ExportJob.Kind)


def download_name(job: ExportJob) -> str:
    return f"{ZIP_NAMES[ExportJob.Kind(job.kind)]}.zip"


def export_job_start(*, kind: str, user, on_unavailable=None) -> tuple[ExportJob, bool]:
    """Queue a build of ``kind``; (job, True). While a build of that kind is queued or
    running, that job instead: (job, False)."""
    if kind not in available_kinds():
        choices = ", ".join(k.value for k in available_kinds())
        raise ExportJobError({"kind": [f"'{kind}' is not an export you can build; use {choices}."]})
    for _ in range(3):
        try:
            with transaction.atomic():
                job = ExportJob.objects.create(kind=kind, created_by=user)
        except IntegrityError:  # one of this kind is queued or running
            running = ExportJob.objects.filter(kind=kind, status__in=ExportJob.ACTIVE).first()
            if running is not None:
                return running, False
            continue  # it finished in between: try again
        enqueue_on_commit(
            "adjudication.build_export_job",
            job.pk,
            what=f"Export job {job.pk}",
            on_unavailable=on_unavailable,
        )
        return job, True
    raise ExportJobError("Another export of this kind keeps starting; try again.")


def _save(job_id: int, **fields) -> None:
    # update(), not save(): progress must not overwrite a status set meanwhile.
    ExportJob.objects.filter(pk=job_id).update(**fields)


def _final_set_zip(progress) -> bytes:
    total = len(BUILD_STEPS) + 1
    bundle = build_export(progress, total=total)
    progress(total - 1, total, STORING)
    return bundle.zip_bytes()


def _statistics_zip(progress) -> bytes:
    from adjudication.export.statistics import statistics_files  # reads every app's statistics

    files = statistics_files(progress)
    return zip_files(files, ZIP_NAMES[ExportJob.Kind.STATISTICS])


def export_job_build(*, job_id: int) -> ExportJob | None:
    """Build the job's zip and store it. A finished or failed job is left as it is; a
    running one (its worker died) is built again from the start."""
    job = ExportJob.objects.filter(pk=job_id).first()
    if job is None or not job.is_active:
        return job
    _save(job_id, status=ExportJob.Status.RUNNING, started_at=timezone.now(), error="")

    def progress(done: int, total: int, step: str) -> None:
        _save(job_id, done=done, total=total, step=str(step)[:200])

    try:
        build = _final_set_zip if job.kind == ExportJob.Kind.FINAL_SET else _statistics_zip
        data = build(progress)
        digest = sha256(data)
        # Named by job and content: a folder shared by several databases (tests) or a
        # rebuilt job never serves another build's bytes.
        name = f"{job.kind}-{job.pk}-{digest[:12]}.zip"
        root = export_root()
        root.mkdir(parents=True, exist_ok=True)
        partial = root / f".{name}.{os.getpid()}.part"
        partial.write_bytes(data)
        os.replace(partial, root / name)  # a reader never sees half a file
    except Exception as error:  # recorded on the job for the page; the log has the trace
        logger.exception("export job %s failed", job_id)
        _save(
            job_id,
            status=ExportJob.Status.FAILED,
            error=f"{type(error).__name__}: {error}"[:2000],
            finished_at=timezone.now(),
        )
    else:
        done = ExportJob.objects.get(pk=job_id).total or 1
        _save(
            job_id,
            status=ExportJob.Status.FINISHED,
            done=done,
            total=done,
            step="Finished",
            file_name=name,
            size=len(data),
            sha256=digest,
            finished_at=timezone.now(),
        )
    return ExportJob.objects.get(pk=job_id)


def job_file(job: ExportJob) -> Path | None:
    """The stored zip of a finished job, None when it is not (or no longer) on disk."""
    if job.status != ExportJob.Status.FINISHED or not job.file_name:
        return None
    path = export_root() / job.file_name
    return path if path.is_file() else None


def latest_finished(kind: str = ExportJob.Kind.FINAL_SET) -> ExportJob | None:
    return (
        ExportJob.objects.filter(kind=kind, status=ExportJob.Status.FINISHED)
        .order_by("-finished_at", "-pk")
        .first()
    )


def export_job_list():
    return ExportJob.objects.select_related("created_by").order_by("-created_at", "-pk")
