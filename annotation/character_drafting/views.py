"""The admin's character drafting pages: the design form, jobs and their progress,
drafts with their calls, redrafts, prompt versions. Thin: parse, call a selector or
service, render."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from annotation.character_drafting import selectors
from annotation.character_drafting.design import table4_plan
from annotation.character_drafting.estimate import drafting_cost_estimate
from annotation.character_drafting.forms import (
    DraftingDesignForm,
    DraftingPromptForm,
    RedraftForm,
)
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.prompts import DEFAULT_TEMPLATES
from annotation.character_drafting.services import jobs, redraft
from annotation.character_drafting.services.common import (
    NOT_CONFIGURED_MESSAGE,
    DraftingError,
    drafting_provider,
)
from annotation.character_drafting.services.redraft_rules import redraft_blocker
from annotation.corpus.models import Character
from core import web
from core.actions import form_action
from core.llm_runs.buttons import cancel_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
from core.roles import CORPUS_ADMINS, role_required
from core.web import add_error_messages

JOBS_PER_PAGE = 25
# What the cancel button is offered for; the service has the last word.
CANCELLABLE = (DraftingJob.Status.RUNNING, DraftingJob.Status.STOPPED_AT_BUDGET)
admin_required = role_required(*CORPUS_ADMINS)


def _provider_state() -> tuple[object, str]:
    """The configured drafting model, or None and the message saying how to set one."""
    try:
        config = drafting_provider()
    except DraftingError as error:
        return None, error.messages[0]
    return config, "" if config is not None else NOT_CONFIGURED_MESSAGE


@admin_required
def drafting_job_list(request):
    page = Paginator(selectors.drafting_job_list(), JOBS_PER_PAGE).get_page(request.GET.get("page"))
    config, problem = _provider_state()
    return render(
        request,
        "character_drafting/job_list.html",
        {"page": page, "provider": config, "provider_problem": problem},
    )


@admin_required
@require_http_methods(["GET", "POST"])
def drafting_job_new(request):
    config, problem = _provider_state()
    plan, existing = None, set()
    if request.method == "POST":
        form = DraftingDesignForm(request.POST)
        if form.is_valid():
            plan = form.cleaned_data["plan"]
            existing = set(
                Character.objects.filter(key__in=[p.char_key for p in plan]).values_list(
                    "key", flat=True
                )
            )
            confirmed = form.cleaned_data.get("confirmed_plan") == form.digest()
            refusals: list[str] = []
            if "launch" in request.POST and confirmed:
                try:
                    job = jobs.drafting_job_create(
                        user=request.user,
                        plan=plan,
                        design=form.cleaned_data["design"],
                        design_text=form.cleaned_data.get("custom_design") or "",
                        model=form.cleaned_data.get("model") or "",
                        note=form.cleaned_data.get("note") or "",
                        budget_usd=form.cleaned_data.get("budget_usd"),
                        on_unavailable=lambda message: messages.error(request, message),
                    )
                except DraftingError as error:
                    refusals = error.messages
                else:
                    messages.success(request, f"Drafting job {job.pk} is queued.")
                    return redirect("drafting:job-detail", job_id=job.pk)
            elif "launch" in request.POST:
                refusals = ["The plan changed since it was checked: look at it again, then launch."]
            # The plan as shown is what "Launch drafting" confirms.
            data = request.POST.copy()
            data["confirmed_plan"] = form.digest()
            form = DraftingDesignForm(data, confirm=config is not None)
            form.is_valid()
            for refusal in refusals:
                form.add_error(None, refusal)
    else:
        form = DraftingDesignForm(initial={"model": config.model if config else ""})
    to_draft = [p for p in plan or [] if p.char_key not in existing]
    if plan is None and request.method == "GET":
        # The default design's characters, until another plan is checked.
        default = table4_plan()
        taken = set(
            Character.objects.filter(key__in=[p.char_key for p in default]).values_list(
                "key", flat=True
            )
        )
        estimate_plan = [p for p in default if p.char_key not in taken]
    else:
        estimate_plan = to_draft
    return render(
        request,
        "character_drafting/job_new.html",
        {
            "form": form,
            "plan": plan,
            "existing": existing,
            "to_draft": to_draft,
            "provider": config,
            "provider_problem": problem,
            "cost": drafting_cost_estimate(plan=estimate_plan, provider=config),
        },
    )


@admin_required
def drafting_job_detail(request, job_id):
    return _render_job(request, job_id)


def _render_job(request, job_id, *, action_error: str = "", resume_form=None):
    """The whole job page, or for htmx only its progress fragment."""
    job = selectors.drafting_job_get(job_id=job_id)
    template = "character_drafting/job_detail.html"
    if request.htmx and resume_form is None:
        template += "#job-progress"
    progress = selectors.drafting_job_progress(job=job)
    return render(
        request,
        template,
        {
            "job": job,
            "run": job,  # the name core/llm_run_detail.html reads
            "progress": progress,
            "polling": job.is_active,
            "run_buttons": _job_buttons(job, progress),
            "action_error": action_error,
            "resume_form": (resume_form or RunResumeForm()) if job.is_stopped_at_budget else None,
        },
    )


def _job_buttons(job, progress) -> list:
    """What the job offers now (core.llm_runs.buttons): a retry of its failed drafts, and
    a cancel while it runs or is stopped at budget (a stopped job is resumed with the
    budget form)."""
    buttons = []
    if job.status in CANCELLABLE:
        buttons.append(
            cancel_button(
                reverse("drafting:job-cancel", kwargs={"job_id": job.pk}),
                question=f"Cancel drafting job {job.pk}? Waiting drafts are cancelled; "
                "drafted characters stay.",
                label="Cancel job",
            )
        )
    failed = progress["counts"]["failed"]
    if failed and job.status in jobs.RETRYABLE:
        buttons.append(
            retry_button(
                reverse("drafting:job-retry", kwargs={"job_id": job.pk}),
                label=f"Retry failed drafts ({failed})",
                element_id="retry-failed-drafts",
            )
        )
    return buttons


@admin_required
@require_POST
def drafting_job_retry(request, job_id):
    selectors.drafting_job_get(job_id=job_id)  # 404 before any write
    return web.run_action(
        request,
        lambda on_unavailable: jobs.drafting_job_retry_failed(
            job_id=job_id, user=request.user, on_unavailable=on_unavailable
        ),
        refusal=DraftingError,
        fragment=lambda problem: _render_job(request, job_id, action_error=problem),
        done_url=reverse("drafting:job-detail", kwargs={"job_id": job_id}),
        done_message=f"Drafting job {job_id}: the failed drafts are queued again.",
    )


@admin_required
@require_POST
def drafting_job_cancel(request, job_id):
    selectors.drafting_job_get(job_id=job_id)  # 404 before any write
    return web.run_action(
        request,
        lambda on_unavailable: jobs.drafting_job_cancel(job_id=job_id, user=request.user),
        refusal=DraftingError,
        fragment=lambda problem: _render_job(request, job_id, action_error=problem),
        done_url=reverse("drafting:job-detail", kwargs={"job_id": job_id}),
        done_message=f"Drafting job {job_id} is cancelled: its waiting drafts will not be "
        "drafted; drafted characters stay.",
    )


@admin_required
@require_POST
def drafting_job_resume(request, job_id):
    """Resume a job stopped at its budget or a monthly cap, with the budget typed (blank:
    none). A refused resume shows the page again with the form's messages."""
    selectors.drafting_job_get(job_id=job_id)
    return resume_from_page(
        request,
        lambda form: form_action(
            form,
            lambda data: jobs.drafting_job_resume(
                job_id=job_id,
                user=request.user,
                budget_usd=data.get("budget_usd"),
                on_unavailable=lambda message: messages.error(request, message),
            ),
            refusals=(DraftingError,),
        ),
        refused_page=lambda form: _render_job(request, job_id, resume_form=form),
        resumed=f"Drafting job {job_id} resumed: its waiting drafts are queued again.",
        to=reverse("drafting:job-detail", args=[job_id]),
    )


@admin_required
def character_draft_detail(request, job_id, id):
    draft = selectors.character_draft_get(job_id=job_id, draft_id=id)
    return render(request, "character_drafting/draft_detail.html", {"draft": draft})


@admin_required
def redraft_list(request):
    return render(
        request, "character_drafting/redraft_list.html", {"rows": selectors.redraft_overview()}
    )


@admin_required
@require_http_methods(["GET", "POST"])
def redraft_new(request, key):
    character = Character.objects.filter(key=key).first()
    if character is None:
        raise Http404(f"No character {key}.")
    config, problem = _provider_state()
    if request.method == "POST":
        form = RedraftForm(request.POST)
        if form.is_valid():
            try:
                job = redraft.drafting_redraft_create(
                    user=request.user,
                    character_key=key,
                    field=form.cleaned_data["field"],
                    admin_note=form.cleaned_data["admin_note"],
                    model=form.cleaned_data["model"],
                    on_unavailable=lambda message: messages.error(request, message),
                )
            except DraftingError as error:
                add_error_messages(form, error)
            else:
                messages.success(request, f"The redraft of {key} is queued (job {job.pk}).")
                return redirect("drafting:job-detail", job_id=job.pk)
    else:
        form = RedraftForm(initial={"model": config.model if config else ""})
    return render(
        request,
        "character_drafting/redraft_new.html",
        {
            "form": form,
            "character": character,
            "latest": character.versions.order_by("-number").first(),
            "blocker": redraft_blocker(character),
            "requests": selectors.redraft_requests(character=character),
            "provider_problem": problem,
        },
    )


@admin_required
def drafting_prompt_list(request):
    return render(
        request,
        "character_drafting/prompt_list.html",
        {"prompts": selectors.drafting_prompt_list()},
    )


@admin_required
@require_http_methods(["GET", "POST"])
def drafting_prompt_new(request):
    if request.method == "POST":
        form = DraftingPromptForm(request.POST)
        if form.is_valid():
            try:
                version = jobs.drafting_prompt_create(user=request.user, **form.cleaned_data)
            except DraftingError as error:
                add_error_messages(form, error)
            else:
                messages.success(request, f"Saved {version}; new jobs use it.")
                return redirect("drafting:prompt-list")
    else:
        latest = selectors.drafting_prompt_latest()
        initial = dict(DEFAULT_TEMPLATES)
        if latest is not None:
            initial = {name: getattr(latest, name) for name in DEFAULT_TEMPLATES}
        form = DraftingPromptForm(initial=initial)
    return render(request, "character_drafting/prompt_new.html", {"form": form})
