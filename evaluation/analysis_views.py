"""The evaluation analysis page and its CSV (admins; seed 000 §3.1, App. G, I, K).

Thin: the selectors read the runs into a :class:`~evaluation.analysis.PredictionTable`
(three queries whatever the number of runs), :mod:`evaluation.analysis` and
:mod:`evaluation.analysis_k` compute, and this module lays the numbers out for the
template (tables, and SVG geometry for the plots: no JavaScript, no CDN).
"""

from django.shortcuts import render
from django.urls import reverse

from core import display
from core.life_stages import LIFE_STAGE_CHOICES, LIFE_STAGE_KEYS
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required
from core.tidy_tables import table_download, table_links
from core.web import csv_download

from . import analysis, analysis_k, analysis_plots, selectors, statistics
from .statistics import setting_names

admin_required = role_required(Role.ADMIN)


def analysis_for_request(request):
    run_ids = [int(x) for x in request.GET.getlist("run") if x.isdigit()]
    runs = selectors.analysis_runs(run_ids or None)
    table = selectors.prediction_table(runs)
    return runs, table


@admin_required
def analysis_page(request):
    runs, table = analysis_for_request(request)
    settings = setting_names()
    accuracy = analysis.accuracy_rows(table)
    comparisons = analysis.paired_comparisons(table)
    breakdowns = [
        (title, *_labelled(by, *analysis.breakdown(table, by)))
        for title, by in (
            ("Character", "character"),
            ("Life-stage bin", "stage"),
            ("Answer-key source family", "source_family"),
        )
    ]
    stages = analysis_k.group_accuracy(table, "stage", order=LIFE_STAGE_KEYS)
    characters = analysis_k.group_accuracy(table, "character")
    stage_names = dict(LIFE_STAGE_CHOICES)
    query = request.GET.urlencode()
    context = {
        "csv_url": reverse("evaluation:analysis-csv") + (f"?{query}" if query else ""),
        "tidy": table_links(
            reverse("evaluation:analysis-table") + (f"?{query}" if query else ""),
            name=statistics.EVALUATION_ANALYSIS.name,
            api_url=reverse("evaluation-api:analysis-rows") + (f"?{query}" if query else ""),
        ),
        "small_n": display.SMALL_N,
        "runs": runs,
        "accuracy": accuracy,
        "plots": _page_plots(
            request,
            {
                "accuracy": analysis_plots.accuracy_plot(accuracy, settings),
                "life-stages": analysis_plots.stage_plot(stages),
                "characters": analysis_plots.character_plot(characters),
            },
        ),
        "comparisons": comparisons,
        "breakdowns": breakdowns,
        "diagnostics": analysis.disclosure_diagnostics(table),
        "matrices": [
            {
                "m": m,
                "plot": _page_plots(
                    request,
                    {
                        f"agreement-{m.setting}".replace("_", "-"): analysis_plots.agreement_plot(
                            m, settings
                        )
                    },
                ).popitem()[1],
            }
            for m in analysis.agreement_matrices(table)
        ],
        "settings": settings,
        "n_boot": analysis.N_BOOTSTRAP,
        "n_permutations": analysis.N_PERMUTATIONS,
        "memory_averages": analysis_k.memory_averages(table),
        "memory_settings": [
            s
            for s in analysis_k.MEMORY_AUGMENTED_SETTINGS
            if any(c.setting == s for c in table.columns)
        ],
        "source_table": _source_table_view(analysis_k.source_stratified(table), settings),
        "own_source": analysis_k.own_source_no_retrieval(table),
        "provenance": analysis_k.provenance_analysis(table),
        "stages": [(stage_names.get(g.group, g.group), g) for g in stages],
        "characters": [(g.group, g, analysis_k.setting_mean(g)) for g in characters],
        "model_labels": [m.label for m in analysis_k.memory_averages(table)],
    }
    return render(request, "evaluation/analysis.html", context)


def _labelled(by, groups, rows):
    """Breakdown groups as (key, label): life stages by name, families in their order."""
    if by == "stage":
        names = dict(LIFE_STAGE_CHOICES)
        return [(g, names.get(g, display.human_label(g))) for g in groups], rows
    if by == "source_family":
        ordered = display.sort_families(groups)
        return [(g, display.family_label(g)) for g in ordered], rows
    return [(g, display.human_label(g)) for g in groups], rows


def _source_table_view(source_table, settings):
    """Table 20 in template order: one column per (source, setting)."""
    columns = [
        {"source": source, "setting": setting, "name": settings.get(setting, setting)}
        for source in source_table.sources
        for setting in source_table.settings
    ]
    rows = [
        {
            "label": row.label,
            "family": row.family,
            "cells": [row.cells.get((c["source"], c["setting"])) for c in columns],
        }
        for row in source_table.rows
    ]
    return {"table": source_table, "columns": columns, "rows": rows}


def _page_plots(request, scenes: dict) -> dict:
    """Template name → PagePlot; the downloads keep the page's choice of runs."""
    query = request.GET.urlencode()
    return {
        name.replace("-", "_"): page_plot(
            scene,
            name=name,
            url_name="evaluation:analysis-plot",
            testid=analysis_plots.TESTIDS.get(
                name.split("-")[0] if name.startswith("agreement-") else name, ""
            ),
            query=query,
        )
        for name, scene in scenes.items()
    }


@admin_required
def analysis_plot(request, plot, fmt):
    runs, table = analysis_for_request(request)
    build = analysis_plots.analysis_plots(table, setting_names()).get(plot)
    return plot_download(build() if build else None, filename=f"evaluation-{plot}", fmt=fmt)


@admin_required
def analysis_csv(request):
    runs, table = analysis_for_request(request)
    response, writer = csv_download("evaluation-analysis.csv")
    writer.writerow(statistics.CSV_HEADER)
    writer.writerows(statistics.analysis_rows(table, setting_names()))
    return response


@admin_required
def analysis_table(request):
    """The analysis as a tidy table (the chosen runs): ``?format=csv`` or ``?format=parquet``."""
    runs, table = analysis_for_request(request)
    return table_download(statistics.evaluation_analysis_table(table, setting_names()), request)
