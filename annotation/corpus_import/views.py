"""The admin's corpus upload and import job pages. Thin: parse, call a selector or
service, render; the upload is queued for a worker once its job row is committed."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation.corpus_import import actions, selectors
from annotation.corpus_import.forms import CorpusImportForm
from annotation.corpus_import.models import ImportJob
from annotation.corpus_import.summary import KINDS as SUMMARY_KINDS
from core.actions import REFUSED, on_page
from core.roles import CORPUS_ADMINS, role_required

RECENT_IMPORT_JOBS = 20
SUMMARY_LABELS = {"mcq_items": "MCQ items"}

corpus_admin_required = role_required(*CORPUS_ADMINS)


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def import_upload(request):
    if request.method == "POST":
        form = CorpusImportForm(request.POST, request.FILES)
    else:
        form = CorpusImportForm()
    if request.method == "POST":
        job = on_page(
            lambda: actions.import_job_create(
                form,
                user=request.user,
                on_unavailable=lambda message: messages.error(request, message),
            )
        )
        if job is not REFUSED:
            return redirect("corpus:import-job", job_id=job.pk)
    return render(
        request,
        "annotation/import_upload.html",
        {"form": form, "jobs": selectors.import_job_list(limit=RECENT_IMPORT_JOBS)},
    )


@corpus_admin_required
def import_job_detail(request, job_id):
    job = selectors.import_job_get(job_id=job_id)
    template = "annotation/import_job_detail.html"
    if request.htmx:
        template += "#job-status"
    counts = (job.summary or {}).get("counts", {})
    # PostgreSQL's jsonb does not keep key order; show the kinds in the pipeline's order.
    kinds = [k for k in SUMMARY_KINDS if k in counts] + sorted(set(counts) - set(SUMMARY_KINDS))
    return render(
        request,
        template,
        {
            "job": job,
            "in_progress": job.status in (ImportJob.Status.PENDING, ImportJob.Status.RUNNING),
            "summary_counts": [
                (kind, SUMMARY_LABELS.get(kind, kind.replace("_", " ").capitalize()), counts[kind])
                for kind in kinds
            ],
        },
    )
