"""Pages of evaluation runs (admins). Thin: parse, call a service or selector, render
(the whole page, or its fragment for htmx)."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from core.actions import REFUSED, on_page
from core.llm_runs.buttons import cancel_button, resume_button, retry_button
from core.llm_runs.forms import RunResumeForm
from core.llm_runs.models import ACTIVE
from core.llm_runs.pages import resume_from_page
from core.plurals import counted
from core.roles import Role, role_required
from core.web import csv_download

from . import actions, embeddings, selectors, services
from .analysis_views import analysis_csv, analysis_page, analysis_plot  # noqa: F401 (urls)
from .estimate import evaluation_cost_estimate
from .forms import EvaluationRunForm, PredictionImportForm
from .models import EvaluationPrediction, EvaluationRun, Setting

admin_required = role_required(Role.ADMIN)
PREDICTIONS_PER_PAGE = 50


@admin_required
@require_http_methods(["GET", "POST"])
def run_list(request):
    """The runs and the launch form with its cost estimate (issue #36): on a GET, of
    every configured model over every final item in the first setting; a POST with
    ``estimate`` (the "Estimate cost" button) estimates the submitted choices only."""
    form = EvaluationRunForm(request.POST or None, request.FILES or None)
    estimating = request.method == "POST" and "estimate" in request.POST
    if request.method == "POST" and not estimating:
        run = on_page(lambda: actions.run_launch(form, user=request.user))
        if run is not REFUSED:
            return redirect("evaluation:run-detail", run_id=run.pk)
    choices = form.estimate_choices() if request.method == "GET" or estimating else None
    cost = evaluation_cost_estimate(**choices) if choices else None
    return render(
        request,
        "evaluation/run_list.html",
        {
            "runs": selectors.run_list(),
            "form": form,
            "final_items": services.final_items().count(),
            "embedding": embeddings.retriever_settings(),
            "cost": cost,
            "cost_setting": Setting(choices["setting"]).label if choices else "",
            "cost_per_choice": cost is not None and len(cost.providers) > 1,
        },
    )


@admin_required
def run_detail(request, run_id):
    return _render_run_detail(request, run_id)


def _run_buttons(run) -> list:
    """What the run offers now; the services guard the same rules and have the last word."""
    if run.is_imported:
        return []
    p, status = run.progress, run.status
    buttons = []
    stopped = EvaluationRun.Status.STOPPED_AT_BUDGET
    if status in (EvaluationRun.Status.PENDING, EvaluationRun.Status.RUNNING, stopped):
        buttons.append(
            cancel_button(
                reverse("evaluation:run-cancel", args=[run.pk]),
                question=f"Cancel run {run.pk}? Items not yet asked stop; stored responses "
                "are kept, and resuming asks the rest.",
            )
        )
    waiting = p.pending + p.running + p.failed + p.cancelled
    resumable = status not in (EvaluationRun.Status.PENDING, EvaluationRun.Status.CANCELLING)
    # A run stopped at its budget resumes through the budget form (its resume form).
    if resumable and waiting and status != stopped and (status not in ACTIVE or p.failed):
        buttons.append(
            resume_button(
                reverse("evaluation:run-resume", args=[run.pk]),
                label=f"Resume: queue the items without a response ({waiting})",
            )
        )
    if p.failed and resumable and status not in (EvaluationRun.Status.CANCELLED, stopped):
        buttons.append(
            retry_button(
                reverse("evaluation:run-retry", args=[run.pk]),
                label=f"Retry the failed items ({p.failed})",
            )
        )
    return buttons


def _render_run_detail(request, run_id, *, action_error: str = "", resume_form=None):
    """The run page, or for htmx only its progress section (status, bar, actions)."""
    run = selectors.run_get(run_id=run_id)
    if run is None:
        raise Http404("No such evaluation run.")
    status = request.GET.get("status") or ""
    if status not in EvaluationPrediction.Status.values:
        status = ""
    page = Paginator(
        selectors.run_predictions(run_id=run.pk, status=status or None), PREDICTIONS_PER_PAGE
    ).get_page(request.GET.get("page"))
    context = {
        "run": run,
        "progress": run.progress,
        "polling": run.status in (EvaluationRun.Status.PENDING, *ACTIVE),
        "run_buttons": _run_buttons(run),
        "action_error": action_error,
        "resume_form": (resume_form or RunResumeForm()) if run.is_stopped_at_budget else None,
        "page": page,
        "status": status,
        "statuses": EvaluationPrediction.Status.choices,
    }
    if request.htmx:
        return render(request, "evaluation/run_detail.html#run-progress", context)
    return render(request, "evaluation/run_detail.html", context)


def _run_action(request, run_id, action, done_message):
    """One run-level action from the run page, as ``core.web.run_action`` answers one: a
    refusal is shown in the htmx fragment, or as a message after the redirect; the
    success message names what the action did (``done_message(outcome)``)."""
    if not EvaluationRun.objects.filter(pk=run_id).exists():
        raise Http404("No such evaluation run.")
    try:
        outcome = action()
    except actions.ActionRefused as refused:
        problem = " ".join(refused.messages)
    else:
        problem = ""
    if request.htmx:
        return _render_run_detail(request, run_id, action_error=problem)
    if problem:
        messages.error(request, problem)
    else:
        messages.success(request, done_message(outcome))
    return redirect("evaluation:run-detail", run_id=run_id)


@admin_required
@require_POST
def run_resume(request, run_id):
    """The Resume button (a cancelled run, failed calls), or the resume form of a run
    stopped at its budget or a monthly cap: its new budget (blank: none). A refused
    budget shows the page again with the form's messages."""
    run = EvaluationRun.objects.filter(pk=run_id).first()
    if run is None:
        raise Http404("No such evaluation run.")
    if not run.is_stopped_at_budget:
        return _run_action(
            request,
            run_id,
            lambda: actions.run_resume(run_id=run_id),
            lambda queued: f"{counted(queued, 'item')} queued again.",
        )
    return resume_from_page(
        request,
        lambda form: actions.run_resume(run_id=run_id, form=form),
        refused_page=lambda form: _render_run_detail(request, run_id, resume_form=form),
        resumed=lambda queued: f"Run {run_id} resumed: {counted(queued, 'item')} queued again.",
        to=reverse("evaluation:run-detail", args=[run_id]),
    )


@admin_required
@require_POST
def run_retry(request, run_id):
    return _run_action(
        request,
        run_id,
        lambda: actions.run_retry(run_id=run_id),
        lambda queued: f"{counted(queued, 'failed item')} queued again.",
    )


@admin_required
@require_POST
def run_cancel(request, run_id):
    return _run_action(
        request,
        run_id,
        lambda: actions.run_cancel(run_id=run_id),
        lambda run: (
            f"Run {run_id} is cancelling: items in flight finish their call, the rest stop."
        ),
    )


@admin_required
def prediction_detail(request, run_id, prediction_id):
    prediction = selectors.prediction_get(run_id=run_id, prediction_id=prediction_id)
    if prediction is None:
        raise Http404("No such prediction.")
    return render(
        request,
        "evaluation/prediction_detail.html",
        {"p": prediction, "run": prediction.run, "calls": selectors.prediction_calls(prediction)},
    )


@admin_required
def predictions_csv(request, run_id):
    run = selectors.run_get(run_id=run_id)
    if run is None:
        raise Http404("No such evaluation run.")
    response, writer = csv_download(f"evaluation-run-{run.pk}-predictions.csv")
    writer.writerow(
        ["question_id", "decision_choice", "status", "parse_path", "correct", "leak_reasons"]
    )
    for p in selectors.run_predictions(run_id=run.pk).select_related(None).select_related("item"):
        correct = "" if p.status not in selectors.GRADED else int(p.choice == p.item.correct_answer)
        writer.writerow(
            [
                p.item.question_id,
                p.choice,
                p.status,
                p.parse_path,
                correct,
                "; ".join(p.leak_reasons),
            ]
        )
    return response


@admin_required
@require_http_methods(["GET", "POST"])
def prediction_import(request):
    form = PredictionImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        run = on_page(lambda: actions.run_import(form, user=request.user))
        if run is not REFUSED:
            messages.success(request, f"Imported {run.label} ({run.get_setting_display()}).")
            return redirect("evaluation:run-detail", run_id=run.pk)
    return render(request, "evaluation/import.html", {"form": form})
