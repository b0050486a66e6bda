"""The admins' export page: the counts, the export jobs (who, when, kind, size, SHA-256,
download), starting a build and its progress. Thin: the jobs service
(adjudication.export.jobs) starts and builds; the views render or send the stored file."""

import base64

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from adjudication.export import actions, jobs
from adjudication.export import selectors as export_selectors
from adjudication.export.models import ExportJob
from core.roles import Role, role_required

admin_required = role_required(Role.ADMIN)
ZIP_NAME = "heartbench-final-set.zip"
JOBS_PER_PAGE = 20


@admin_required
@require_GET
def export_home(request):
    page = Paginator(jobs.export_job_list(), JOBS_PER_PAGE).get_page(request.GET.get("page"))
    template = "adjudication/export/home.html"
    if request.htmx:
        template += "#export-jobs"
    return render(
        request,
        template,
        {
            "summary": export_selectors.export_summary(),
            "layout": export_selectors.EXPORT_LAYOUT,
            "jobs": page,
            "polling": any(job.is_active for job in page),
            "kinds": jobs.available_kinds(),
            "latest": jobs.latest_finished(),
        },
    )


@admin_required
@require_POST
def export_start(request):
    unqueued: list[str] = []
    try:
        job, created = actions.export_job_start(
            kind=request.POST.get("kind", ExportJob.Kind.FINAL_SET),
            user=request.user,
            on_unavailable=unqueued.append,
        )
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
        return redirect("export:home")
    if unqueued:
        messages.error(request, unqueued[0])
    elif created:
        messages.success(
            request,
            f"Export job {job.pk} is queued: a worker builds the zip; its progress shows below.",
        )
    else:
        messages.info(
            request,
            f"Export job {job.pk} is already building this export: follow it below "
            "instead of starting another.",
        )
    return redirect("export:home")


def checksum_headers(response, job: ExportJob):
    """``X-Checksum-SHA256`` (hex) and ``Digest`` (RFC 3230, base64) of the stored file."""
    response["X-Checksum-SHA256"] = job.sha256
    response["Digest"] = "sha-256=" + base64.b64encode(bytes.fromhex(job.sha256)).decode()
    return response


def job_file_response(job: ExportJob):
    path = jobs.job_file(job)
    if path is None:
        raise Http404("This export job has no stored file.")
    response = FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=jobs.download_name(job),
        content_type="application/zip",
    )
    return checksum_headers(response, job)


@admin_required
@require_GET
def export_job_download(request, job_id):
    return job_file_response(get_object_or_404(ExportJob, pk=job_id))


@admin_required
@require_GET
def export_download(request):
    """The former direct download: the newest finished final-set export."""
    latest = jobs.latest_finished(ExportJob.Kind.FINAL_SET)
    if latest is None:
        messages.info(request, "No export has been built yet: start a build below.")
        return redirect("export:home")
    return redirect("export:job-download", job_id=latest.pk)
