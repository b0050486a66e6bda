"""The admin's memory generation run pages (seed 000 App. B.5): launch (with a
confirmation step), the run list, a run's live progress per character and life-stage
bin, cancel / resume / retry, a batch with its slots, calls and memories, and a
character's memories in the App. B.5 storage serialization. Thin: parse, call a
selector or a service, render.

Model names, prompts and raw output are shown: admin only (``CORPUS_ADMINS``).
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.memory_generation import actions
from annotation.memory_generation.batching import BatchingError
from annotation.memory_generation.estimate import memory_cost_estimate
from annotation.memory_generation.forms.runs import (
    TIERS,
    MemoryRunForm,
    near_duplicates_of,
    plan_ids_from_query,
)
from annotation.memory_generation.models import MemoryPlan, MemoryRun
from annotation.memory_generation.selectors import runs as selectors

# The run services are h3's (annotation/memory_generation/services/runs.py); until the
# branches merge they may be missing here. Lead: at the merge, keep only the two imports.
from annotation.memory_generation.services import runs as run_services
from annotation.memory_generation.storage import StorageFormatError, serialize
from core import web
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
from core.plurals import counted
from core.roles import CORPUS_ADMINS, role_required

RUNS_PER_PAGE = 25
# What the buttons offer; the services guard the same rules and have the last word.
CANCELLABLE = (
    MemoryRun.Status.PENDING,
    MemoryRun.Status.RUNNING,
    MemoryRun.Status.STOPPED_AT_BUDGET,
)
# A run stopped at a spending limit is resumed with the budget form instead.
RESUMABLE = (MemoryRun.Status.CANCELLED,)
RETRYABLE = (MemoryRun.Status.FINISHED_WITH_FAILURES,)

admin_required = role_required(*CORPUS_ADMINS)


def _provider():
    return run_services.memory_provider_config()


@admin_required
@require_GET
def run_list(request):
    page = selectors.memory_run_list_page(
        page_number=request.GET.get("page"), per_page=RUNS_PER_PAGE
    )
    return render(request, "memory_generation/run_list.html", {"page": page})


def _plan_summaries(plans) -> list[dict]:
    return [
        {"plan": plan, "total": plan.deficit, "bins": [b for b in plan.bins() if b.quota]}
        for plan in plans
    ]


@admin_required
@require_http_methods(["GET", "POST"])
def run_new(request):
    """GET: the form, plans preselected from ``?plans=1,2``. POST ``review``: the
    confirmation step (the values, the plans' totals, the provider). POST ``confirm``:
    create and start the run. ``edit`` goes back to the form with the values kept."""
    provider = _provider()
    default_model = provider.model if provider is not None else ""
    if request.method == "GET":
        chosen = list(
            MemoryPlan.objects.filter(pk__in=plan_ids_from_query(request.GET.get("plans")))
        )
        form = MemoryRunForm(initial={"plans": chosen}, default_model=default_model)
        return _render_new(request, form, provider, confirming=False)
    form = MemoryRunForm(request.POST, default_model=default_model)
    if "estimate" in request.POST:
        # A change of the form (htmx) asks for the cost estimate again; nothing is made.
        if request.htmx:
            return render(
                request, "memory_generation/run_new.html#cost-estimate", {"cost": _cost(form)}
            )
        return _render_new(request, form, provider, confirming=False)
    if not form.is_valid() or "edit" in request.POST:
        return _render_new(request, form, provider, confirming=False)
    if "confirm" not in request.POST:
        return _render_new(request, form, provider, confirming=True)
    try:
        run = actions.memory_run_launch(form, user=request.user)
    except actions.ActionRefused:  # the form carries the messages
        return _render_new(request, form, provider, confirming=False)
    messages.success(request, f"Memory run {run.pk} launched.")
    return redirect("memory_generation:run-detail", run_id=run.pk)


def _cost(form):
    """The cost estimate of the run the form describes: its plans (the valid ones), seed
    and tier shares, the defaults for what is not valid yet; None without a plan."""
    if form.is_bound:
        form.is_valid()
        data = form.cleaned_data
        plans = data.get("plans") or []
        seed = data.get("seed") or 0
        shares = form.tier_shares() if not form.errors else None
    else:
        plans, seed, shares = form.initial.get("plans") or [], 0, None
    plans = list(
        MemoryPlan.objects.select_related("character", "profile_version").filter(
            pk__in=[plan.pk for plan in plans]
        )
    )
    try:
        return memory_cost_estimate(plans=plans, seed=seed, tier_shares=shares)
    except BatchingError:
        return None


def _render_new(request, form, provider, *, confirming: bool):
    plans = form.cleaned_data.get("plans") if form.is_bound and form.is_valid() else None
    if plans is None:
        plans = form.initial.get("plans") or []
    plans = list(plans)
    summaries = _plan_summaries(plans)
    # The near-duplicate pairs the plans' characters take part in: the form's own check
    # once it was submitted, the preselected plans' before.
    near_duplicates = form.near_duplicates if form.is_bound else near_duplicates_of(plans)
    return render(
        request,
        "memory_generation/run_new.html",
        {
            "form": form,
            "provider": provider,
            "confirming": confirming and form.is_valid(),
            "summaries": summaries,
            "grand_total": sum(s["total"] for s in summaries),
            "tiers": [(t, form[f"tier_{t.lower()}"]) for t in TIERS],
            "cost": _cost(form),
            "near_duplicates": near_duplicates,
        },
    )


def _run_buttons(run, progress) -> list:
    """What the run offers now (core.llm_runs.buttons)."""

    def url(name):
        return reverse(f"memory_generation:run-{name}", kwargs={"run_id": run.pk})

    buttons = []
    if run.status in CANCELLABLE:
        buttons.append(
            cancel_button(
                url("cancel"),
                question=f"Cancel run {run.pk}? Batches stop after their current memory; "
                "stored memories stay.",
            )
        )
    if run.status in RESUMABLE:
        buttons.append(
            resume_button(
                url("resume"),
                question=f"Resume run {run.pk}? Unfinished batches ask only for their empty slots.",
            )
        )
    failed = progress["batches_failed"]
    if run.status in RETRYABLE and failed > 0:
        buttons.append(
            retry_button(
                url("retry"),
                label=f"Retry failed batches ({failed})",
                question=f"Retry the {counted(failed, 'failed batch', 'failed batches')} "
                f"of run {run.pk}? Only their empty slots are asked for.",
            )
        )
    return buttons


def _detail_context(request, run_id: int, *, action_error: str = "", resume_form=None) -> dict:
    run = selectors.memory_run_get(run_id=run_id)
    progress = selectors.memory_run_progress(run=run)
    return {
        "run": run,
        "progress": progress,
        "polling": run.status in selectors.ACTIVE_RUN_STATUSES,
        "run_buttons": _run_buttons(run, progress),
        "action_error": action_error,
        "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
    }


@admin_required
@require_GET
def run_detail(request, run_id):
    template = "memory_generation/run_detail.html"
    if request.htmx:
        template += "#run-progress"
    return render(request, template, _detail_context(request, run_id))


@admin_required
@require_GET
def run_progress(request, run_id):
    """The progress fragment alone (what the page polls); a whole page without htmx."""
    return render(
        request, "memory_generation/run_detail.html#run-progress", _detail_context(request, run_id)
    )


def _run_action(request, run_id, action, done_message: str):
    """One run-level service call (``web.run_action``); a refusal is shown in place of
    ``done_message``."""
    get_object_or_404(MemoryRun, pk=run_id)  # 404 before any write
    return web.run_action(
        request,
        lambda on_unavailable: action(run_id=run_id, user=request.user),
        refusal=actions.ActionRefused,
        fragment=lambda problem: render(
            request,
            "memory_generation/run_detail.html#run-progress",
            _detail_context(request, run_id, action_error=problem),
        ),
        done_url=reverse("memory_generation:run-detail", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def run_cancel(request, run_id):
    return _run_action(
        request,
        run_id,
        actions.memory_run_cancel,
        f"Memory run {run_id} is cancelling: batches in flight finish their current memory; "
        "stored memories stay.",
    )


@admin_required
@require_POST
def run_resume(request, run_id):
    """Resume a cancelled run; a run stopped at its budget or a monthly cap is resumed
    with the budget typed on its page (blank: none), and a refusal shows the page again
    with the form's messages."""
    run = get_object_or_404(MemoryRun, pk=run_id)
    if run.is_stopped_at_budget:
        return resume_from_page(
            request,
            lambda form: actions.memory_run_resume_with_budget(
                form, run_id=run_id, user=request.user
            ),
            refused_page=lambda form: render(
                request,
                "memory_generation/run_detail.html",
                _detail_context(request, run_id, resume_form=form),
            ),
            resumed=f"Memory run {run_id} resumed: its waiting batches are queued again.",
            to=reverse("memory_generation:run-detail", args=[run_id]),
        )
    return _run_action(
        request,
        run_id,
        actions.memory_run_resume,
        f"Memory run {run_id} resumed: unfinished batches ask only for their empty slots.",
    )


@admin_required
@require_POST
def run_retry(request, run_id):
    return _run_action(
        request,
        run_id,
        actions.memory_run_retry,
        f"Memory run {run_id}: the failed batches are queued again for their empty slots.",
    )


@admin_required
@require_GET
def batch_detail(request, run_id, batch_id):
    return render(
        request,
        "memory_generation/batch_detail.html",
        {"batch": selectors.memory_batch_get(run_id=run_id, batch_id=batch_id)},
    )


@admin_required
@require_GET
def storage_download(request, character_key):
    """The character's memories in the App. B.5 storage serialization (text/plain); a
    409 naming every memory the format cannot carry exactly."""
    memories = selectors.character_memories_for_storage(character_key=character_key)
    try:
        text = serialize(memories)
    except StorageFormatError as error:
        return HttpResponse(f"{error}\n", status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{character_key}_memories.txt"'
    return response


urlpatterns = [
    path("runs/", run_list, name="run-list"),
    path("runs/new/", run_new, name="run-new"),
    path("runs/<int:run_id>/", run_detail, name="run-detail"),
    path("runs/<int:run_id>/progress/", run_progress, name="run-progress"),
    path("runs/<int:run_id>/cancel/", run_cancel, name="run-cancel"),
    path("runs/<int:run_id>/resume/", run_resume, name="run-resume"),
    path("runs/<int:run_id>/retry/", run_retry, name="run-retry"),
    path("runs/<int:run_id>/batches/<int:batch_id>/", batch_detail, name="batch-detail"),
    path("characters/<str:character_key>/memories.txt", storage_download, name="storage-download"),
]
