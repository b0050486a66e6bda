"""Corpus pages for the roles that may read the construction corpus, and the admin's
import upload. Thin: parse, call a selector or service, render."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from kombu.exceptions import OperationalError as BrokerUnavailable

from heartbench_site.roles import CORPUS_ADMINS, CORPUS_READERS, role_required

from . import selectors, services
from .celery_tasks import run_import_job
from .forms import CorpusImportForm
from .importers.summary import KINDS as SUMMARY_KINDS
from .models import ImportJob

CHARACTERS_PER_PAGE = 50
MEMORIES_PER_PAGE = 50
RECENT_IMPORT_JOBS = 20
SUMMARY_LABELS = {"mcq_items": "MCQ items"}

corpus_reader_required = role_required(*CORPUS_READERS)
corpus_admin_required = role_required(*CORPUS_ADMINS)


@corpus_reader_required
def corpus_index(request):
    return redirect("corpus:character-list")


@corpus_reader_required
def character_list(request):
    page = Paginator(selectors.character_list(), CHARACTERS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "annotation/character_list.html", {"page": page})


@corpus_reader_required
def character_detail(request, key):
    character = selectors.character_get(key=key)
    memories = Paginator(
        selectors.memory_list_for_table(character=character), MEMORIES_PER_PAGE
    ).get_page(request.GET.get("page"))
    return render(
        request,
        "annotation/character_detail.html",
        {
            "character": character,
            "versions": character.current_versions,
            "current": character.current_versions[0] if character.current_versions else None,
            "stage_counts": selectors.memory_life_stage_counts(character=character),
            "memories": memories,
        },
    )


@corpus_reader_required
def memory_detail(request, memory_id):
    return render(
        request,
        "annotation/memory_detail.html",
        {"memory": selectors.memory_get(memory_id=memory_id)},
    )


@corpus_reader_required
def scenario_list(request):
    return render(
        request,
        "annotation/scenario_list.html",
        {"stages": selectors.scenarios_by_life_stage()},
    )


@corpus_reader_required
def scenario_detail(request, scenario_id):
    return render(
        request,
        "annotation/scenario_detail.html",
        {"scenario": selectors.scenario_get(scenario_id=scenario_id)},
    )


def dispatch_import_job(request, job: ImportJob) -> None:
    """Queue the job once the row is committed, so the worker can see it."""

    def enqueue():
        try:
            run_import_job.delay(job.pk)
        except BrokerUnavailable:
            messages.error(
                request,
                f"Import job {job.pk} is saved but could not be queued: the task broker "
                "is not reachable. Start Redis and a Celery worker, then upload again.",
            )

    transaction.on_commit(enqueue)


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def import_upload(request):
    if request.method == "POST":
        form = CorpusImportForm(request.POST, request.FILES)
    else:
        form = CorpusImportForm()
    if request.method == "POST" and form.is_valid():
        try:
            job = services.import_job_create(
                files=[(f.name, f.read()) for f in form.cleaned_data["files"]],
                user=request.user,
            )
        except services.ImportJobError as error:
            form.add_error("files", str(error))
        else:
            dispatch_import_job(request, job)
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
