"""The demo's export: one finished final-set export job, so the export page lists a
build and its download from the start (``demo_setup``). Built in-process, as a worker
would build it."""

from adjudication.export import jobs
from adjudication.export.models import ExportJob


def demo_export(*, user) -> ExportJob:
    """A finished final-set export job (the existing one when its file is stored)."""
    latest = jobs.latest_finished(ExportJob.Kind.FINAL_SET)
    if latest is not None and jobs.job_file(latest) is not None:
        return latest
    job = ExportJob.objects.filter(
        kind=ExportJob.Kind.FINAL_SET, status__in=ExportJob.ACTIVE
    ).first() or ExportJob.objects.create(kind=ExportJob.Kind.FINAL_SET, created_by=user)
    return jobs.export_job_build(job_id=job.pk)
