"""The plots of the evaluation analysis page (core/plots.py): accuracy
per run with its interval, accuracy per life-stage bin and per character, and the
model-model agreement matrix of each setting.

The plots are drawn from the analysis's computed figures (the stored report the page
reads, :mod:`evaluation.analysis_figures`), each only when asked for.
"""

from core import display, plots
from core.life_stages import LIFE_STAGE_CHOICES
from core.protocol import CHANCE_LEVEL

from . import analysis_k

CHANCE = plots.Reference(CHANCE_LEVEL, "Chance level (25%, one of four options)")
#: The page's test ids of the plots, kept from the hand-drawn SVG they replace.
TESTIDS = {"accuracy": "accuracy-plot", "life-stages": "life-stage-plot"}
TESTIDS |= {"characters": "character-plot", "agreement": "agreement-plot"}


def _percent_chart(bars, *, title, x_label, y_label, **options) -> plots.Scene:
    return plots.hbar_chart(
        bars,
        title=title,
        x_label=x_label,
        y_label=y_label,
        tick_format=plots.percent_ticks,
        x_range=(0.0, 1.0),
        references=[CHANCE],
        **options,
    )


def accuracy_plot(rows, settings) -> plots.Scene:
    bars = [
        plots.Bar(
            f"{row.label} · {settings.get(row.setting, display.human_label(row.setting))}",
            row.accuracy,
            row.ci_low,
            row.ci_high,
            display.format_percent(row.accuracy),
            f"{row.n_correct:,} of {row.n_items:,} correct",
        )
        for row in rows
    ]
    return _percent_chart(
        bars,
        title="Accuracy per run with 95% scenario-cluster bootstrap intervals",
        x_label="Accuracy",
        y_label="Model · setting",
        series_label="Accuracy",
        interval_label="95% CI (scenario-cluster bootstrap)",
    )


def stage_plot(stages) -> plots.Scene:
    names = dict(LIFE_STAGE_CHOICES)
    bars = [
        plots.Bar(
            names.get(g.group, display.human_label(g.group)),
            g.accuracy,
            value_text=display.format_percent(g.accuracy),
            detail=f"{g.correct:,} of {g.n:,} predictions correct",
        )
        for g in stages
    ]
    return _percent_chart(
        bars,
        title="Pooled accuracy per life-stage bin (memory-augmented settings)",
        x_label="Pooled accuracy",
        y_label="Life-stage bin",
        series_label="Pooled accuracy",
    )


def character_plot(characters) -> plots.Scene:
    bars = [
        plots.Bar(
            display.human_label(g.group),
            analysis_k.setting_mean(g),
            value_text=display.format_percent(analysis_k.setting_mean(g)),
            detail=f"{g.n:,} predictions",
        )
        for g in characters
    ]
    return _percent_chart(
        bars,
        title="Accuracy per character, mean over the memory-augmented settings",
        x_label="Accuracy, mean over settings",
        y_label="Character",
        series_label="Mean accuracy",
    )


def agreement_plot(matrix, settings) -> plots.Scene:
    n = len(matrix.labels)
    cells = [[float(matrix.rate[i, j]) for j in range(n)] for i in range(n)]
    setting = settings.get(matrix.setting, display.human_label(matrix.setting))
    return plots.heatmap_chart(
        matrix.labels,
        cells,
        title=f"Model–model answer agreement, {setting}, over {matrix.n_items:,} items",
        value_format=display.format_percent,
        axis_label="Share of jointly valid items with the same answer",
        legend_label="Agreement (darker is higher)",
    )


def analysis_plots(figures, settings) -> dict:
    """Name → a function building that plot from the figures."""
    builders = {
        "accuracy": lambda: accuracy_plot(figures.accuracy, settings),
        "life-stages": lambda: stage_plot(figures.stages),
        "characters": lambda: character_plot(figures.characters),
    }
    for matrix in figures.matrices:
        builders[f"agreement-{matrix.setting}".replace("_", "-")] = lambda m=matrix: agreement_plot(
            m, settings
        )
    return builders
