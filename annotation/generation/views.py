"""The admin's candidate generation pages: runs (launch, progress, cancel, retry), units
and prompt versions. Thin: parse, call a selector or service, render.

!!! BLINDING !!!  These pages show model families and model names; they stay behind
corpus_admin_required, and nothing here may be reused by an annotator-facing view.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.generation import actions, selectors
from annotation.generation.estimate import generation_cost_estimate
from annotation.generation.forms import GenerationRunForm, PromptVersionForm
from annotation.generation.models import GenerationRun, GenerationStage, ModelFamily
from annotation.generation.prompts import PLACEHOLDERS as PROMPT_PLACEHOLDERS
from annotation.generation.services import runs
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.runs import GenerationError
from core import web
from core.actions import REFUSED, on_page
from core.llm_runs.buttons import cancel_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
from core.roles import CORPUS_ADMINS, role_required

RUNS_PER_PAGE = 25
FAILED_UNITS_PER_PAGE = 25
# What the buttons offer; the services guard the same rules and have the last word.
CANCELLABLE_RUN_STATUSES = (
    GenerationRun.Status.PENDING,
    GenerationRun.Status.RUNNING,
    GenerationRun.Status.STOPPED_AT_BUDGET,
)
RETRYABLE_RUN_STATUSES = (
    GenerationRun.Status.RUNNING,
    GenerationRun.Status.FINISHED_WITH_FAILURES,
    GenerationRun.Status.FINISHED,
)

corpus_admin_required = role_required(*CORPUS_ADMINS)


@corpus_admin_required
def generation_run_list(request):
    page = Paginator(selectors.generation_run_list(), RUNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "annotation/generation/run_list.html", {"page": page})


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def generation_run_new(request):
    """The launch form. A POST with ``estimate`` (the "Count units" button, or htmx on
    every change) only counts the units the choices would create."""
    configured = list(generation_family_configs())
    counting = request.method == "POST" and "estimate" in request.POST
    if request.method == "POST":
        form = GenerationRunForm(request.POST, configured=configured)
    else:
        form = GenerationRunForm(configured=configured)
    if request.method == "POST" and not counting:
        run = on_page(
            lambda: actions.generation_run_launch(
                form,
                user=request.user,
                on_unavailable=lambda message: messages.error(request, message),
            )
        )
        if run is not REFUSED:
            return redirect("corpus:generation-detail", run_id=run.pk)
    template = "annotation/generation/run_new.html"
    if request.htmx and counting:
        template += "#unit-estimate"
    choices = form.choices_for_estimate()
    estimate = (
        selectors.generation_unit_estimate(**choices, configured=configured) if choices else None
    )
    cost = (
        generation_cost_estimate(families=choices["families"], gates=estimate.gates)
        if estimate
        else None
    )
    return render(request, template, {"form": form, "estimate": estimate, "cost": cost})


@corpus_admin_required
def generation_run_detail(request, run_id):
    return _render_run_detail(request, run_id)


def _render_run_detail(request, run_id, *, action_error: str = "", resume_form=None):
    """The whole run page, or for htmx only its progress fragment (which holds the
    actions and the failed units, so a swap keeps them all consistent)."""
    run = selectors.generation_run_get(run_id=run_id)
    progress = selectors.generation_run_progress_table(run=run)
    template = "annotation/generation/run_detail.html"
    if request.htmx:
        template += "#run-progress"
    return render(
        request,
        template,
        {
            "run": run,
            "progress": progress,
            "failed_units": selectors.generation_failed_units_page(
                run_id=run.pk, page_number=request.GET.get("page"), per_page=FAILED_UNITS_PER_PAGE
            ),
            "run_models": [
                (family, (run.models or {}).get(family.value, ""))
                for family in ModelFamily
                if family.value in (run.families or [])
            ],
            "polling": run.status in selectors.ACTIVE_RUN_STATUSES,
            "run_buttons": _run_buttons(run, progress),
            "action_error": action_error,
            "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
        },
    )


def _run_buttons(run, progress) -> list:
    """What the run offers now (core.llm_runs.buttons)."""
    buttons = []
    if run.status in CANCELLABLE_RUN_STATUSES:
        buttons.append(
            cancel_button(
                reverse("corpus:generation-cancel", kwargs={"run_id": run.pk}),
                question=f"Cancel run {run.pk}? Units not yet finished stop; finished "
                "candidates are kept.",
            )
        )
    if progress["failed"] > 0 and run.status in RETRYABLE_RUN_STATUSES:
        buttons.append(
            retry_button(
                reverse("corpus:generation-retry", kwargs={"run_id": run.pk}),
                label=f"Retry failed units ({progress['failed']})",
            )
        )
    return buttons


def _run_action(request, run_id, action, done_message: str):
    """``action(on_unavailable)`` is one run action (``actions``, ``web.run_action``)."""
    return web.run_action(
        request,
        action,
        refusal=actions.ActionRefused,
        fragment=lambda problem: _render_run_detail(request, run_id, action_error=problem),
        done_url=reverse("corpus:generation-detail", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@corpus_admin_required
@require_POST
def generation_run_cancel(request, run_id):
    selectors.generation_run_get(run_id=run_id)  # 404 before any write
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: actions.generation_run_cancel(run_id=run_id),
        f"Run {run_id} is cancelling: units in flight finish their current call, the rest stop.",
    )


@corpus_admin_required
@require_POST
def generation_run_retry(request, run_id):
    selectors.generation_run_get(run_id=run_id)
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: actions.generation_run_retry(
            run_id=run_id, on_unavailable=on_unavailable
        ),
        f"Run {run_id}: the failed units are queued again.",
    )


@corpus_admin_required
@require_POST
def generation_run_resume(request, run_id):
    """Resume a run stopped at its budget or a monthly cap, with the budget typed (blank:
    none). A refused resume shows the page again with the form's messages."""
    selectors.generation_run_get(run_id=run_id)
    return resume_from_page(
        request,
        lambda form: actions.generation_run_resume(
            form,
            run_id=run_id,
            on_unavailable=lambda message: messages.error(request, message),
        ),
        refused_page=lambda form: _render_run_detail(request, run_id, resume_form=form),
        resumed=f"Run {run_id} resumed: its waiting units are queued again.",
        to=reverse("corpus:generation-detail", args=[run_id]),
    )


@corpus_admin_required
def generation_unit_detail(request, run_id, unit_id):
    return render(
        request,
        "annotation/generation/unit_detail.html",
        {"unit": selectors.generation_unit_get(run_id=run_id, unit_id=unit_id)},
    )


@corpus_admin_required
def prompt_list(request):
    return render(
        request,
        "annotation/generation/prompt_list.html",
        {
            "stages": [
                (stage, versions, sorted(PROMPT_PLACEHOLDERS[stage.value]))
                for stage, versions in selectors.prompt_versions_by_stage()
            ]
        },
    )


@corpus_admin_required
@require_http_methods(["GET", "POST"])
def prompt_new(request, stage):
    if stage not in GenerationStage.values:
        raise Http404("No such generation stage.")
    latest = selectors.prompt_version_latest(stage=stage)
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
            version = runs.prompt_version_create(
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
