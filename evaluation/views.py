"""Pages of evaluation runs (admins). Thin: parse, call a service or selector, render
(the whole page, or its fragment for htmx)."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.plurals import counted
from core.roles import Role, role_required
from core.web import csv_download

from . import actions, embeddings, selectors, services
from .analysis_views import analysis_csv, analysis_page, analysis_plot  # noqa: F401 (urls)
from .forms import EvaluationRunForm, PredictionImportForm
from .models import EvaluationPrediction, EvaluationRun

admin_required = role_required(Role.ADMIN)
PREDICTIONS_PER_PAGE = 50


@admin_required
@require_http_methods(["GET", "POST"])
def run_list(request):
    form = EvaluationRunForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        try:
            run = actions.run_launch(form, user=request.user)
        except actions.ActionRefused:
            pass  # the form carries the messages
        else:
            return redirect("evaluation:run-detail", run_id=run.pk)
    return render(
        request,
        "evaluation/run_list.html",
        {
            "runs": selectors.run_list(),
            "form": form,
            "final_items": services.final_items().count(),
            "embedding": embeddings.retriever_settings(),
        },
    )


@admin_required
def run_detail(request, run_id):
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
        "polling": run.status in ("pending", "running"),
        "page": page,
        "status": status,
        "statuses": EvaluationPrediction.Status.choices,
    }
    if request.htmx:
        return render(request, "evaluation/run_detail.html#run-progress", context)
    return render(request, "evaluation/run_detail.html", context)


@admin_required
@require_POST
def run_resume(request, run_id):
    try:
        queued = actions.run_resume(run_id=run_id)
    except EvaluationRun.DoesNotExist:
        raise Http404("No such evaluation run.") from None
    except actions.ActionRefused as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"{counted(queued, 'item')} queued again.")
    return redirect("evaluation:run-detail", run_id=run_id)


@admin_required
def prediction_detail(request, run_id, prediction_id):
    prediction = selectors.prediction_get(run_id=run_id, prediction_id=prediction_id)
    if prediction is None:
        raise Http404("No such prediction.")
    return render(
        request, "evaluation/prediction_detail.html", {"p": prediction, "run": prediction.run}
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
        try:
            run = actions.run_import(form, user=request.user)
        except actions.ActionRefused:
            pass  # the form carries the messages
        else:
            messages.success(request, f"Imported {run.label} ({run.get_setting_display()}).")
            return redirect("evaluation:run-detail", run_id=run.pk)
    return render(request, "evaluation/import.html", {"form": form})
