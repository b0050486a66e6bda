"""The export's one write, one door (issue #33): the export page's "Build" button and
``POST /api/export/jobs/`` start a build through this function, so both refuse an unknown
kind (or a start that keeps racing) with the same words (``core.actions``)."""

from adjudication.export import jobs
from core.actions import ActionRefused

__all__ = ["ActionRefused", "export_job_start"]


def export_job_start(*, kind: str, user, on_unavailable=None):
    """A build of ``kind``, or the one of that kind already under way: ``(job, created)``."""
    try:
        return jobs.export_job_start(kind=kind, user=user, on_unavailable=on_unavailable)
    except jobs.ExportJobError as error:
        raise ActionRefused(None, cause=error) from error
