"""The plots of the scenario coverage page (core/plots.py)."""

from core import display, plots

from .selectors import Coverage


def coverage_plots(coverage: Coverage) -> dict[str, plots.Scene]:
    """The page's plots by name (the download URLs use the names)."""
    charts = {
        "life-stages": plots.hbar_chart(
            [
                plots.Bar(
                    s.label,
                    s.total,
                    value_text=display.format_count(s.total),
                    colour=plots.PALETTE[0]
                    if s.total == coverage.per_stage_target
                    else plots.PALETTE[1],
                )
                for s in coverage.stages
            ],
            title="Scenarios per life-stage bin, against the target per bin",
            x_label="Scenarios",
            y_label="Life-stage bin",
            tick_format=plots.count_ticks,
            integer=True,
            references=[
                plots.Reference(
                    coverage.per_stage_target, f"Target ({coverage.per_stage_target} per bin)"
                )
            ],
            categories=[
                (plots.PALETTE[0], "On target"),
                (plots.PALETTE[1], "Off target"),
            ],
        )
    }
    charts["diamonds"] = plots.stacked_hbar_chart(
        [(r.label, r.counts) for r in coverage.distribution],
        title="Distribution of final DIAMONDS ratings per dimension, "
        "from 1 (not present, left) to 7 (strongly present, right)",
        categories=[str(v) for v in coverage.scale],
        legend_title="Rating",
        x_label="Scenarios with a final rating",
        y_label="Dimension",
        total=coverage.n_final,
        empty_text="No scenario has a final DIAMONDS rating yet, so there is nothing to plot.",
    )
    return charts
