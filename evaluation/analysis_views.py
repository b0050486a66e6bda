"""The evaluation analysis page and its CSV (admins; seed 000 §3.1, App. G, I, K).

Thin: the selectors read the runs into a :class:`~evaluation.analysis.PredictionTable`
(three queries whatever the number of runs), :mod:`evaluation.analysis` and
:mod:`evaluation.analysis_k` compute, and this module lays the numbers out for the
template (tables, and SVG geometry for the plots: no JavaScript, no CDN).
"""

from django.shortcuts import render
from django.urls import reverse

from annotation.corpus.life_stages import LIFE_STAGE_CHOICES, LIFE_STAGE_KEYS
from heartbench_site.base import display
from heartbench_site.base.plot_views import page_plot, plot_download
from heartbench_site.base.roles import Role, role_required
from heartbench_site.base.web import csv_download

from . import analysis, analysis_k, analysis_plots, selectors
from .models import Setting

admin_required = role_required(Role.ADMIN)
#: Setting names of the paper's memory backends the platform has no runner for yet.
SETTING_NAMES = {
    "mem0": "Mem0",
    "persona_db": "PersonaDB",
    analysis_k.MEMORY_AVG: "Memory-Aug. Avg.",
}


def _settings() -> dict:
    return {**SETTING_NAMES, **dict(Setting.choices)}


def _analysis(request):
    run_ids = [int(x) for x in request.GET.getlist("run") if x.isdigit()]
    runs = selectors.analysis_runs(run_ids or None)
    table = selectors.prediction_table(runs)
    return runs, table


@admin_required
def analysis_page(request):
    runs, table = _analysis(request)
    settings = _settings()
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
    runs, table = _analysis(request)
    build = analysis_plots.analysis_plots(table, _settings()).get(plot)
    return plot_download(build() if build else None, filename=f"evaluation-{plot}", fmt=fmt)


@admin_required
def analysis_csv(request):
    runs, table = _analysis(request)
    settings = _settings()
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
    _k_csv_rows(writer, table, settings)
    return response


def _k_csv_rows(writer, table, settings):
    """App. K rows of the CSV, in the same eleven columns."""

    def row(
        section,
        model="",
        setting="",
        group="",
        n="",
        correct="",
        value="",
        low="",
        high="",
        p="",
        p_holm="",
    ):
        writer.writerow([section, model, setting, group, n, correct, value, low, high, p, p_holm])

    for m in analysis_k.memory_averages(table):
        row("memory_augmented_avg", m.label, "", "", "", "", m.average)
    source_table = analysis_k.source_stratified(table)
    for r in source_table.rows:
        for (source, setting), cell in r.cells.items():
            row(
                "k1_source",
                r.label,
                settings.get(setting, setting),
                source,
                cell.n or "",
                cell.correct if cell.n else "",
                cell.accuracy,
            )
    provenance = analysis_k.provenance_analysis(table)
    if provenance is not None:
        if provenance.stability is not None:
            members = " + ".join(provenance.stability.members)
            for source, share in provenance.stability.shares.items():
                row(
                    f"k1_top{provenance.stability.k}",
                    members,
                    "",
                    source,
                    provenance.stability.n_defined[source],
                    "",
                    share,
                )
        for c in provenance.correlations:
            row(
                "k1_spearman",
                "",
                "",
                f"{c.a} vs {c.b}",
                c.n_models,
                "",
                c.rho.estimate,
                c.rho.ci_low,
                c.rho.ci_high,
            )
        for i in provenance.interactions:
            e = i.estimate
            row(
                "k1_interaction",
                "",
                "",
                i.family,
                i.n_home_items,
                "",
                e.estimate,
                e.ci_low,
                e.ci_high,
                i.p_value,
                i.p_holm,
            )
    for by, section in (("stage", "k3_life_stage"), ("character", "k4_character")):
        for g in analysis_k.group_accuracy(
            table, by, order=LIFE_STAGE_KEYS if by == "stage" else None
        ):
            value = g.accuracy if by == "stage" else analysis_k.setting_mean(g)
            row(section, "", "", g.group, g.n, g.correct, value)
