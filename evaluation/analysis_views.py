"""The evaluation analysis page and its CSV (admins; seed 000 §3.1, App. G, I, K).

Thin: a worker computes every figure once per set of inputs (the stored report
``evaluation.analysis``, :mod:`evaluation.stored_reports`); the page, its CSV, Parquet
and plot downloads and the API rows read that stored result and only lay it out (tables,
and SVG geometry for the plots: no JavaScript, no CDN). A request never computes a
statistic: while nothing is stored yet the page says the figures are being computed and
the downloads answer 409; while the stored figures are older than their inputs the page
shows them, says so and polls until the new ones are stored.
"""

import hashlib

from django.core.cache import cache
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe

from core import display
from core.life_stages import LIFE_STAGE_CHOICES
from core.plot_views import page_plot, plot_download
from core.report_downloads import FiguresNotReady, not_ready_response
from core.reports.services import report_for
from core.roles import Role, role_required
from core.tidy_tables import table_download, table_links
from core.web import csv_download

from . import analysis, analysis_figures, analysis_k, analysis_plots, statistics, stored_reports
from .statistics import setting_names

admin_required = role_required(Role.ADMIN)


def chosen_key(request) -> str:
    """The stored report's key: the run ids of ``?run=``, "" for the default choice."""
    return stored_reports.key_for(int(x) for x in request.GET.getlist("run") if x.isdigit())


#: How long a rendered figures block is kept (it is keyed by the stored figures it shows,
#: so new figures are never served from an old block).
FIGURES_HTML_SECONDS = 24 * 3600


def stored_analysis(request):
    """The stored report of the chosen runs and its figures (None before the first
    computation); queues a computation when the inputs changed, never runs one."""
    report = report_for(stored_reports.ANALYSIS_KIND, chosen_key(request))
    figures = analysis_figures.from_json(report.result) if report.ready else None
    return report, figures


def stored_figures(request) -> analysis_figures.AnalysisFigures:
    """The figures a download serves: the page's stored ones; :class:`FiguresNotReady`
    when there are none yet."""
    _, figures = stored_analysis(request)
    if figures is None:
        raise FiguresNotReady()
    return figures


@admin_required
def analysis_page(request):
    report = report_for(stored_reports.ANALYSIS_KIND, chosen_key(request))
    query = request.GET.urlencode()
    context = {
        "report": report,
        "poll_url": request.get_full_path(),
        "csv_url": reverse("evaluation:analysis-csv") + (f"?{query}" if query else ""),
        "tidy": table_links(
            reverse("evaluation:analysis-table") + (f"?{query}" if query else ""),
            name=statistics.EVALUATION_ANALYSIS.name,
            api_url=reverse("evaluation-api:analysis-rows") + (f"?{query}" if query else ""),
        ),
        "small_n": display.SMALL_N,
        "settings": setting_names(),
        "n_boot": analysis.N_BOOTSTRAP,
        "n_permutations": analysis.N_PERMUTATIONS,
    }
    context["figures_html"] = figures_html(request, report, context)
    return render(request, "evaluation/analysis.html", context)


def figures_html(request, report, context) -> str:
    """The figures block. At 65 runs it is about a megabyte of tables and plots whose
    layout costs far more than reading the stored figures, so it is laid out once per
    stored result (its row, fingerprint and time of computation), query and setting
    names, and kept in the cache; a new computation or a renamed setting gives a new key."""
    if not report.ready:
        return render_to_string(
            "evaluation/analysis_figures.html", context | {"figures": None}, request
        )
    identity = [
        report.row.pk,
        report.row.fingerprint,
        report.row.computed_at.isoformat(),
        sorted(request.GET.lists()),
        sorted(context["settings"].items()),
    ]
    key = "evaluation-analysis-html:" + hashlib.sha256(repr(identity).encode()).hexdigest()
    html = cache.get(key)
    if html is None:
        figures = analysis_figures.from_json(report.result)
        laid_out = _figures_context(request, figures, context["settings"])
        html = render_to_string(
            "evaluation/analysis_figures.html",
            context | {"figures": figures} | laid_out,
            request,
        )
        cache.set(key, str(html), FIGURES_HTML_SECONDS)
    return mark_safe(html)  # laid out by our own template, escaped there


def _figures_context(request, figures, settings) -> dict:
    stage_names = dict(LIFE_STAGE_CHOICES)
    return {
        "accuracy": figures.accuracy,
        "plots": _page_plots(
            request,
            {
                "accuracy": analysis_plots.accuracy_plot(figures.accuracy, settings),
                "life-stages": analysis_plots.stage_plot(figures.stages),
                "characters": analysis_plots.character_plot(figures.characters),
            },
        ),
        "comparisons": figures.comparisons,
        "breakdowns": [
            (title, *_labelled(by, *figures.breakdowns[by]))
            for title, by in analysis_figures.BREAKDOWNS
        ],
        "diagnostics": figures.diagnostics,
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
            for m in figures.matrices
        ],
        "memory_averages": figures.memory_averages,
        "memory_settings": figures.memory_settings,
        "source_table": _source_table_view(figures.source_table, settings),
        "own_source": figures.own_source,
        "provenance": figures.provenance,
        "fixed_effects": figures.fixed_effects,
        "distractors": figures.distractors,
        "stages": [(stage_names.get(g.group, g.group), g) for g in figures.stages],
        "characters": [(g.group, g, analysis_k.setting_mean(g)) for g in figures.characters],
        "model_labels": [m.label for m in figures.memory_averages],
    }


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
    try:
        figures = stored_figures(request)
    except FiguresNotReady:
        return not_ready_response()
    build = analysis_plots.analysis_plots(figures, setting_names()).get(plot)
    return plot_download(build() if build else None, filename=f"evaluation-{plot}", fmt=fmt)


@admin_required
def analysis_csv(request):
    try:
        figures = stored_figures(request)
    except FiguresNotReady:
        return not_ready_response()
    response, writer = csv_download("evaluation-analysis.csv")
    writer.writerow(statistics.CSV_HEADER)
    writer.writerows(statistics.analysis_rows(figures, setting_names()))
    return response


@admin_required
def analysis_table(request):
    """The analysis as a tidy table (the chosen runs): ``?format=csv`` or ``?format=parquet``."""
    try:
        figures = stored_figures(request)
    except FiguresNotReady:
        return not_ready_response()
    return table_download(statistics.figures_table(figures, setting_names()), request)
