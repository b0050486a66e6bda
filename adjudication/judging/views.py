"""The admin's judge-run pages: the list, the launch form, a run's page (progress polled
with htmx, the framework's cancel, resume and retry buttons, the per-call table). Thin:
parse, call a selector or service, render.

!!! BLINDING !!!  These pages show the judge's verdicts, model families and candidate
ids; they stay admin-only (not even the arbitrator, whose decisions the judge must not
sway), and nothing here may be reused by an annotator- or participant-facing view.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from adjudication.judging import selectors
from adjudication.judging.estimate import judge_cost_estimate
from adjudication.judging.forms import JudgeRunForm
from adjudication.judging.models import JudgeRun
from adjudication.judging.services import runs
from adjudication.judging.services.runs import JudgeRunError
from core import web
from core.actions import form_action
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.pages import resume_from_page
from core.roles import Role, role_required

RUNS_PER_PAGE = 25
CALLS_PER_PAGE = 50

admin_required = role_required(Role.ADMIN)

Status = JudgeRun.Status
# What the buttons offer; the services guard the same rules and have the last word.
CANCELLABLE = (Status.PENDING, Status.RUNNING)
# The calibration report reads a run whose every call has its final answer.
REPORTABLE = (Status.FINISHED, Status.FINISHED_WITH_FAILURES)


@admin_required
def judge_run_list(request):
    page = Paginator(selectors.judge_run_list(), RUNS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "judging/run_list.html", {"page": page})


@admin_required
@require_http_methods(["GET", "POST"])
def judge_run_new(request):
    configured = list(runs.judge_provider_configs())
    eligible = selectors.judge_eligible_pairs()
    form_kwargs = {"configured": configured, "eligible": eligible}
    if request.method == "POST":
        form = JudgeRunForm(request.POST, **form_kwargs)
    else:
        form = JudgeRunForm(**form_kwargs)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = runs.judge_run_create(
                user=request.user,
                name=data["name"],
                provider_family=data["provider_family"],
                judge_family=data["judge_family"],
                model=data["model"],
                seed=data["seed"],
                orders_per_pair=data["orders_per_pair"],
                pair_ids=form.pair_ids(),
                note=data["note"],
                budget_usd=data.get("budget_usd"),
            )
        except JudgeRunError as error:
            form.add_error(None, str(error))
        else:
            runs.judge_run_start(
                run_id=run.pk, on_unavailable=lambda message: messages.error(request, message)
            )
            return redirect("judging:run", run_id=run.pk)
    return render(
        request,
        "judging/run_new.html",
        {
            "form": form,
            "configured": configured,
            "eligible_count": eligible.count(),
            "cost": judge_cost_estimate(pairs=eligible),
        },
    )


@admin_required
def judge_run_detail(request, run_id):
    return _render_run(request, run_id)


def _render_run(request, run_id, *, action_error: str = "", resume_form=None):
    """The whole run page, or for htmx only its progress fragment (the status, actions
    and call table, so a swap keeps them consistent)."""
    run = selectors.judge_run_get(run_id=run_id)
    progress = selectors.judge_run_progress(run_id=run.pk)
    template = "judging/run_detail.html"
    if request.htmx:
        template += "#run-progress"
    return render(
        request,
        template,
        {
            "run": run,
            "progress": progress,
            "calls": selectors.judge_call_page(
                run_id=run.pk, page_number=request.GET.get("page"), per_page=CALLS_PER_PAGE
            ),
            "report_url": selectors.judge_report_url(run.pk) if run.status in REPORTABLE else None,
            "polling": run.in_progress,
            "run_buttons": _run_buttons(run, progress),
            "action_error": action_error,
            # Issue #36: a run stopped at a spending limit resumes with the budget typed
            # here, through the run's one resume URL.
            "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
        },
    )


def _run_buttons(run: JudgeRun, progress) -> list:
    """Cancel while it is pending or running; resume once cancelled; retry the failed
    calls once it finished with failures. Resume and retry post to the one resume URL,
    whose service reads the run's state (a run stopped at a spending limit resumes by
    the form beside the buttons, to the same URL)."""
    again = reverse("judging:resume", kwargs={"run_id": run.pk})
    if run.status in CANCELLABLE:
        return [
            cancel_button(
                reverse("judging:cancel", kwargs={"run_id": run.pk}),
                question=f"Cancel judge run {run.pk}? Calls not yet sent stop; calls already "
                "sent finish and are recorded. You can resume the run later.",
            )
        ]
    left = progress.without_verdict
    if run.status == Status.CANCELLED and left:
        label = f"Resume run ({left} call{pluralize(left)} without a verdict)"
        return [resume_button(again, label=label)]
    if run.status == Status.FINISHED_WITH_FAILURES and progress.failed:
        failed = progress.failed
        return [retry_button(again, label=f"Retry {failed} failed call{pluralize(failed)}")]
    return []


def _run_action(request, run_id, action, done_message: str):
    """``action(on_unavailable)`` is one run-level service call (``web.run_action``)."""
    return web.run_action(
        request,
        action,
        refusal=JudgeRunError,
        fragment=lambda problem: _render_run(request, run_id, action_error=problem),
        done_url=reverse("judging:run", kwargs={"run_id": run_id}),
        done_message=done_message,
    )


@admin_required
@require_POST
def judge_run_cancel(request, run_id):
    selectors.judge_run_get(run_id=run_id)  # 404 before any write
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: runs.judge_run_cancel(run_id=run_id),
        f"Judge run {run_id} is cancelled: calls already sent finish and are recorded.",
    )


@admin_required
@require_POST
def judge_run_resume(request, run_id):
    """The run's one resume: the buttons of a cancelled run and of one with failed calls,
    and the form of a run stopped at a spending limit (its new budget, blank: none); a
    refused budget shows the page again with the form's message."""
    run = selectors.judge_run_get(run_id=run_id)
    if run.is_stopped_at_budget:
        return _resume_at_budget(request, run_id)
    return _run_action(
        request,
        run_id,
        lambda on_unavailable: runs.judge_run_resume(run_id=run_id, on_unavailable=on_unavailable),
        f"Judge run {run_id} is resumed: the calls without a verdict are queued again.",
    )


def _resume_at_budget(request, run_id):
    unqueued: list[str] = []

    def said(_run):
        for message in unqueued:
            messages.error(request, message)
        return None if unqueued else f"Judge run {run_id} is resumed: its waiting calls are queued."

    return resume_from_page(
        request,
        lambda form: form_action(
            form,
            lambda data: runs.judge_run_resume(
                run_id=run_id, budget_usd=data.get("budget_usd"), on_unavailable=unqueued.append
            ),
            refusals=(JudgeRunError,),
        ),
        refused_page=lambda form: _render_run(request, run_id, resume_form=form),
        resumed=said,
        to=reverse("judging:run", args=[run_id]),
    )
