"""The arbitration analytics page (issue 22), its CSV and its plots: admin and arbitrator
only, never an annotator (who was overturned is not theirs to see). Thin: the selector
computes, :func:`analytics_plots` draws, the views render."""

from django.shortcuts import render
from django.urls import reverse

from adjudication.arbitration import statistics, stored_reports
from core import display, plots
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required
from core.tidy_tables import table_download, table_links
from core.web import csv_download

arbitration_readers = role_required(Role.ARBITRATOR, Role.ADMIN)
TITLES = {
    "agreement": "Agreement with the final reference, per annotator",
    "overturned": "Selections the arbitrator overturned, per annotator",
    "guidance_followed": "Revision guidance followed in an edit, per annotator",
}
#: What each plot says when no annotator has a share yet (every share undefined).
EMPTY = {
    "agreement": "No decided pair has a reference adopted or edited from a candidate yet, "
    "so there is nothing to plot.",
    "overturned": "The arbitrator has not decided an escalated pair yet, so there is nothing "
    "to plot: a selection can only be overturned at arbitration.",
    "guidance_followed": "No pair has been decided by an edit of a candidate that an annotator "
    "gave revision guidance on yet, so there is nothing to plot.",
}


def analytics_plots(result) -> dict[str, plots.Scene]:
    """The page's plots by name (the download URLs use the names, with hyphens)."""
    charts = {}
    for metric, title in TITLES.items():
        bars = []
        for a in result.annotators:
            rate = getattr(a, metric)
            bars.append(
                plots.Bar(
                    a.username,
                    rate.share,
                    low=rate.low,
                    high=rate.high,
                    value_text=f"{display.format_percent(rate.share)} ({rate.hits}/{rate.n})"
                    if rate.n
                    else "",
                )
            )
        charts[metric.replace("_", "-")] = plots.hbar_chart(
            bars,
            title=title,
            x_label="Share of the annotator's judgments",
            y_label="Annotator",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            interval_label="95% Wilson interval",
            empty_text=EMPTY[metric],
        )
    return charts


@arbitration_readers
def arbitration_analytics(request):
    report, result = stored_reports.stored_analytics()
    lift = result.lift if result else None
    return render(
        request,
        "adjudication/analytics.html",
        {
            "report": report,
            "poll_url": request.path,
            "a": result,
            "plots": []
            if result is None
            else [
                page_plot(
                    scene,
                    name=name,
                    url_name="adjudication:analytics-plot",
                    testid=f"analytics-{name}",
                )
                for name, scene in analytics_plots(result).items()
            ],
            "table": table_links(
                reverse("adjudication:analytics-table"),
                name=statistics.ARBITRATION_ANALYTICS.name,
                api_url=reverse("adjudication-api:analytics-rows"),
            ),
            "lift_note": display.small_n_note(lift.pairs, "pair") if lift else "",
        },
    )


@arbitration_readers
def arbitration_analytics_plot(request, plot, fmt):
    charts = analytics_plots(_stored())
    return plot_download(charts.get(plot), filename=f"arbitration-analytics-{plot}", fmt=fmt)


@arbitration_readers
def arbitration_analytics_csv(request):
    response, writer = csv_download("arbitration-analytics.csv")
    for row in _stored().csv_rows():
        writer.writerow(["" if value is None else value for value in row])
    return response


@arbitration_readers
def arbitration_analytics_table(request):
    """The analytics as a tidy table: ``?format=csv`` or ``?format=parquet``."""
    return table_download(statistics.arbitration_analytics_table(_stored()), request)


def _stored():
    """The stored figures for a download; no rows before the first computation."""
    return stored_reports.stored_analytics()[1] or stored_reports.NOT_COMPUTED
