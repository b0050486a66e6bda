"""Pages of evaluation runs (admins). Thin: parse, call a service or selector, render
(the whole page, or its fragment for htmx)."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from heartbench_site.base.roles import Role, role_required
from heartbench_site.base.web import add_error_messages, csv_download

from . import analysis, embeddings, selectors, services
from .forms import EvaluationRunForm, PredictionImportForm
from .models import EvaluationError, EvaluationPrediction, Setting
from .prediction_import import evaluation_run_import

admin_required = role_required(Role.ADMIN)
PREDICTIONS_PER_PAGE = 50


@admin_required
@require_http_methods(["GET", "POST"])
def run_list(request):
    form = EvaluationRunForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            items = form.items()
            run = services.evaluation_run_create(
                created_by=request.user,
                provider_key=data["provider"],
                setting=data["setting"],
                items=items,
                item_set=data["item_set_name"],
                label=data["label"],
                decoding={"temperature": data["temperature"], "max_tokens": data["max_tokens"]},
                retrieval_method=data["retrieval_method"],
                k=data["k"],
                note=data["note"],
            )
            services.evaluation_run_start(run_id=run.pk)
        except EvaluationError as error:
            add_error_messages(form, error)
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
        queued = services.evaluation_run_resume(run_id=run_id)
    except EvaluationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"{queued} item(s) queued again.")
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
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            run = evaluation_run_import(
                created_by=request.user,
                filename=upload.name,
                content=upload.read(),
                label=form.cleaned_data["label"],
                setting=form.cleaned_data["setting"],
                note=form.cleaned_data["note"],
            )
        except EvaluationError as error:
            add_error_messages(form, error)
        else:
            messages.success(request, f"Imported {run.label} ({run.get_setting_display()}).")
            return redirect("evaluation:run-detail", run_id=run.pk)
    return render(request, "evaluation/import.html", {"form": form})


def _analysis(request):
    run_ids = [int(x) for x in request.GET.getlist("run") if x.isdigit()]
    runs = selectors.analysis_runs(run_ids or None)
    table = selectors.prediction_table(runs)
    return runs, table


@admin_required
def analysis_page(request):
    runs, table = _analysis(request)
    accuracy = analysis.accuracy_rows(table)
    comparisons = analysis.paired_comparisons(table)
    breakdowns = [
        (title, *analysis.breakdown(table, by))
        for title, by in (
            ("Character", "character"),
            ("Life-stage bin", "stage"),
            ("Answer-key source family", "source_family"),
        )
    ]
    context = {
        "runs": runs,
        "accuracy": accuracy,
        "plot": _accuracy_plot(accuracy),
        "comparisons": comparisons,
        "breakdowns": breakdowns,
        "diagnostics": analysis.disclosure_diagnostics(table),
        "matrices": [_matrix_view(m) for m in analysis.agreement_matrices(table)],
        "settings": dict(Setting.choices),
        "n_boot": analysis.N_BOOTSTRAP,
        "n_permutations": analysis.N_PERMUTATIONS,
    }
    return render(request, "evaluation/analysis.html", context)


@admin_required
def analysis_csv(request):
    runs, table = _analysis(request)
    settings = dict(Setting.choices)
    response, writer = csv_download("evaluation-analysis.csv")
    writer.writerow(
        [
            "section",
            "model",
            "setting",
            "group",
            "n_items",
            "n_correct",
            "accuracy",
            "ci_low",
            "ci_high",
            "p_value",
            "p_holm",
        ]
    )
    for row in analysis.accuracy_rows(table):
        writer.writerow(
            [
                "accuracy",
                row.label,
                settings[row.setting],
                "",
                row.n_items,
                row.n_correct,
                row.accuracy,
                row.ci_low,
                row.ci_high,
                "",
                "",
            ]
        )
    for family, rows in analysis.paired_comparisons(table).items():
        for c in rows:
            writer.writerow(
                [
                    f"paired_{family}",
                    f"{c.a.label} − {c.b.label}" if family == "models" else c.a.label,
                    settings[c.a.setting]
                    if family == "models"
                    else f"{settings[c.a.setting]} − {settings[c.b.setting]}",
                    "",
                    c.n_items,
                    "",
                    c.difference,
                    "",
                    "",
                    c.p_value,
                    c.p_holm,
                ]
            )
    for by in ("character", "stage", "source_family"):
        groups, rows = analysis.breakdown(table, by)
        for row in rows:
            for g in groups:
                cell = row["cells"].get(g)
                if cell:
                    writer.writerow(
                        [
                            by,
                            row["column"].label,
                            settings[row["column"].setting],
                            g,
                            cell["n"],
                            cell["correct"],
                            cell["accuracy"],
                            "",
                            "",
                            "",
                            "",
                        ]
                    )
    for d in analysis.disclosure_diagnostics(table):
        writer.writerow(
            ["delta_profile", d.label, "", "", d.n_items, "", d.delta_profile, "", "", "", ""]
        )
        writer.writerow(
            ["delta_memory", d.label, "", "", d.n_items, "", d.delta_memory, "", "", "", ""]
        )
    for m in analysis.agreement_matrices(table):
        for i, a in enumerate(m.labels):
            for j, b in enumerate(m.labels):
                if i < j:
                    writer.writerow(
                        [
                            "agreement",
                            f"{a} · {b}",
                            settings[m.setting],
                            "",
                            int(m.jointly_valid[i, j]),
                            int(m.agree[i, j]),
                            float(m.rate[i, j]),
                            "",
                            "",
                            "",
                            "",
                        ]
                    )
    return response


# --- inline SVG geometry (the templates draw it) ------------------------------------------

PLOT_ROW = 22
PLOT_LEFT = 260
PLOT_WIDTH = 420


def _accuracy_plot(rows):
    """Bars with CI whiskers, in SVG user units; a dashed line at the 25% chance level."""
    out = []
    for n, row in enumerate(rows):
        y = 10 + n * PLOT_ROW
        out.append(
            {
                "row": row,
                "y": y,
                "text_y": y + 13,
                "width": round(row.accuracy * PLOT_WIDTH, 2),
                "ci_x1": round(PLOT_LEFT + (row.ci_low or row.accuracy) * PLOT_WIDTH, 2),
                "ci_x2": round(PLOT_LEFT + (row.ci_high or row.accuracy) * PLOT_WIDTH, 2),
                "mid": y + 8,
                "label_x": round(PLOT_LEFT + row.accuracy * PLOT_WIDTH + 6, 2),
            }
        )
    return {
        "bars": out,
        "height": 20 + len(rows) * PLOT_ROW,
        "left": PLOT_LEFT,
        "width": PLOT_LEFT + PLOT_WIDTH + 60,
        "chance_x": PLOT_LEFT + PLOT_WIDTH * 0.25,
        "full_x": PLOT_LEFT + PLOT_WIDTH,
    }


def _matrix_view(matrix):
    size = 34
    n = len(matrix.labels)
    cells = []
    for i in range(n):
        for j in range(n):
            rate = float(matrix.rate[i, j])
            cells.append(
                {
                    "x": 140 + j * size,
                    "y": 10 + i * size,
                    "rate": rate,
                    "pct": round(100 * rate),
                    "opacity": round(0.15 + 0.85 * rate, 3),
                    "agree": int(matrix.agree[i, j]),
                    "valid": int(matrix.jointly_valid[i, j]),
                    "a": matrix.labels[i],
                    "b": matrix.labels[j],
                }
            )
    rows = [
        {
            "label": label,
            "y": 10 + i * size + size // 2 + 4,
            "cells": [c for c in cells if c["a"] == label],
        }
        for i, label in enumerate(matrix.labels)
    ]
    return {
        "m": matrix,
        "cells": cells,
        "rows": rows,
        "size": size,
        "width": 150 + n * size,
        "height": 20 + n * size,
    }
