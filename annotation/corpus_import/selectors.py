"""Reads of import jobs, shaped for pages and the API.

Each selector issues a fixed number of queries whatever the number of jobs (tests assert
the counts), and none loads an uploaded file's bytes.
"""

from django.db.models import Count, Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from annotation.corpus_import.models import ImportJob, ImportJobFile


def import_job_list(*, limit: int | None = None) -> QuerySet[ImportJob]:
    qs = (
        ImportJob.objects.select_related("created_by")
        .annotate(file_count=Count("files"))
        .order_by("-created_at", "-pk")
    )
    return qs[:limit] if limit is not None else qs


def import_job_get(*, job_id: int) -> ImportJob:
    """A job with its files' names and sizes (never their bytes) in ``job.file_list``."""
    files = Prefetch(
        "files", queryset=ImportJobFile.objects.defer("content").order_by("pk"), to_attr="file_list"
    )
    return get_object_or_404(
        ImportJob.objects.select_related("created_by").prefetch_related(files), pk=job_id
    )
