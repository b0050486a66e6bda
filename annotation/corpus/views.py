"""Corpus pages for the roles that may read the construction corpus, and the admin's
import upload. Thin: parse, call a selector or service, render."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from kombu.exceptions import OperationalError as BrokerUnavailable

from annotation.corpus import selectors
from annotation.corpus.models import ImportJob
from annotation.corpus_import import services
from annotation.corpus_import.celery_tasks import run_import_job
from annotation.corpus_import.forms import CorpusImportForm, GenerationRunForm, PromptVersionForm
from annotation.corpus_import.summary import KINDS as SUMMARY_KINDS
from annotation.generation import run_selectors as generation_ui_selectors
from annotation.generation import services as generation_services
from annotation.generation.models import GenerationRun, GenerationStage, ModelFamily
from annotation.generation.prompts import PLACEHOLDERS as PROMPT_PLACEHOLDERS
from annotation.generation.services import GenerationError
from heartbench_site.base.roles import CORPUS_ADMINS, CORPUS_READERS, role_required

CHARACTERS_PER_PAGE = 50
MEMORIES_PER_PAGE = 50
RECENT_IMPORT_JOBS = 20
SUMMARY_LABELS = {"mcq_items": "MCQ items"}
RUNS_PER_PAGE = 25
FAILED_UNITS_PER_PAGE = 25
# What the buttons offer; the services guard the same rules and have the last word.
CANCELLABLE_RUN_STATUSES = (GenerationRun.Status.PENDING, GenerationRun.Status.RUNNING)
RETRYABLE_RUN_STATUSES = (
    GenerationRun.Status.RUNNING,
    GenerationRun.Status.FINISHED_WITH_FAILURES,
    GenerationRun.Status.FINISHED,
)

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


# --- Candidate generation (admin only) ------------------------------------------------
# !!! BLINDING !!!  These pages show model families and model names; they stay behind
# corpus_admin_required, and nothing here may be reused by an annotator-facing view.


@corpus_admin_required
def generation_run_list(request):
    page = Paginator(generation_ui_selectors.generation_run_list(), RUNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "annotation/generation/run_list.html", {"page": page})


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def generation_run_new(request):
    """The launch form. A POST with ``estimate`` (the "Count units" button, or htmx on
    every change) only counts the units the choices would create."""
    configured = list(generation_services.generation_family_configs())
    counting = request.method == "POST" and "estimate" in request.POST
    if request.method == "POST":
        form = GenerationRunForm(request.POST, configured=configured)
    else:
        form = GenerationRunForm(configured=configured)
    if request.method == "POST" and not counting and form.is_valid():
        try:
            run = generation_services.generation_run_create(
                user=request.user,
                families=form.cleaned_data["families"],
                note=form.cleaned_data["note"],
                **form.pair_filter(),
            )
        except GenerationError as error:
            form.add_error(None, str(error))
        else:
            _start_run(request, run.pk)
            return redirect("corpus:generation-detail", run_id=run.pk)
    template = "annotation/generation/run_new.html"
    if request.htmx and counting:
        template += "#unit-estimate"
    choices = form.choices_for_estimate()
    estimate = (
        generation_ui_selectors.generation_unit_estimate(**choices, configured=configured)
        if choices
        else None
    )
    return render(request, template, {"form": form, "estimate": estimate})


def _start_run(request, run_id: int) -> None:
    try:
        generation_services.generation_run_start(run_id=run_id)
    except BrokerUnavailable:
        messages.error(
            request,
            f"Run {run_id} is saved but its units could not be queued: the task broker is "
            "not reachable. Start Redis and a Celery worker, then launch the run again.",
        )


@corpus_admin_required
def generation_run_detail(request, run_id):
    return _render_run_detail(request, run_id)


def _render_run_detail(request, run_id, *, action_error: str = ""):
    """The whole run page, or for htmx only its progress fragment (which holds the
    actions and the failed units, so a swap keeps them all consistent)."""
    run = generation_ui_selectors.generation_run_get(run_id=run_id)
    progress = generation_ui_selectors.generation_run_progress_table(run=run)
    template = "annotation/generation/run_detail.html"
    if request.htmx:
        template += "#run-progress"
    return render(
        request,
        template,
        {
            "run": run,
            "progress": progress,
            "failed_units": generation_ui_selectors.generation_failed_units_page(
                run_id=run.pk, page_number=request.GET.get("page"), per_page=FAILED_UNITS_PER_PAGE
            ),
            "run_models": [
                (family, (run.models or {}).get(family.value, ""))
                for family in ModelFamily
                if family.value in (run.families or [])
            ],
            "polling": run.status in generation_ui_selectors.ACTIVE_RUN_STATUSES,
            "can_cancel": run.status in CANCELLABLE_RUN_STATUSES,
            "can_retry": progress["failed"] > 0 and run.status in RETRYABLE_RUN_STATUSES,
            "action_error": action_error,
        },
    )


def _run_action(request, run_id, action, done_message: str):
    try:
        action(run_id=run_id)
    except GenerationError as error:
        if request.htmx:
            return _render_run_detail(request, run_id, action_error=str(error))
        messages.error(request, str(error))
    except BrokerUnavailable:
        error = "The task broker is not reachable. Start Redis and a Celery worker, then retry."
        if request.htmx:
            return _render_run_detail(request, run_id, action_error=error)
        messages.error(request, error)
    else:
        if request.htmx:
            return _render_run_detail(request, run_id)
        messages.success(request, done_message)
    return redirect("corpus:generation-detail", run_id=run_id)


@corpus_admin_required
@require_POST
def generation_run_cancel(request, run_id):
    generation_ui_selectors.generation_run_get(run_id=run_id)  # 404 before any write
    return _run_action(
        request,
        run_id,
        generation_services.generation_run_cancel,
        f"Run {run_id} is cancelling: units in flight finish their current call, the rest stop.",
    )


@corpus_admin_required
@require_POST
def generation_run_retry(request, run_id):
    generation_ui_selectors.generation_run_get(run_id=run_id)
    return _run_action(
        request,
        run_id,
        generation_services.generation_run_retry_failed,
        f"Run {run_id}: the failed units are queued again.",
    )


@corpus_admin_required
def generation_unit_detail(request, run_id, unit_id):
    return render(
        request,
        "annotation/generation/unit_detail.html",
        {"unit": generation_ui_selectors.generation_unit_get(run_id=run_id, unit_id=unit_id)},
    )


@corpus_admin_required
def prompt_list(request):
    return render(
        request,
        "annotation/generation/prompt_list.html",
        {
            "stages": [
                (stage, versions, sorted(PROMPT_PLACEHOLDERS[stage.value]))
                for stage, versions in generation_ui_selectors.prompt_versions_by_stage()
            ]
        },
    )


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def prompt_new(request, stage):
    if stage not in GenerationStage.values:
        raise Http404("No such generation stage.")
    latest = generation_ui_selectors.prompt_version_latest(stage=stage)
    if request.method == "POST":
        form = PromptVersionForm(request.POST, stage=stage)
    else:
        initial = (
            {"system_template": latest.system_template, "user_template": latest.user_template}
            if latest
            else {}
        )
        form = PromptVersionForm(initial=initial, stage=stage)
    if request.method == "POST" and form.is_valid():
        try:
            version = generation_services.prompt_version_create(
                user=request.user, stage=stage, **form.cleaned_data
            )
        except GenerationError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Saved {version}.")
            return redirect("corpus:prompt-list")
    return render(
        request,
        "annotation/generation/prompt_new.html",
        {
            "form": form,
            "stage": GenerationStage(stage),
            "latest": latest,
            "placeholders": sorted(PROMPT_PLACEHOLDERS[stage]),
        },
    )
