"""The comparison and arbitration outcomes page (App. D.2), its CSV and its plots.
Thin: the selector computes, :func:`outcome_plots` draws, the views render."""

from django.shortcuts import render
from django.urls import reverse

from adjudication.arbitration import selectors, statistics
from adjudication.arbitration.models import AdjudicationSettings
from core import display, plots
from core.plot_views import page_plot, plot_download
from core.roles import Role, role_required, user_roles
from core.tidy_tables import table_download, table_links
from core.web import csv_download

arbitration_readers = role_required(Role.ARBITRATOR, Role.ADMIN)
#: The selector's name for references the arbitrator rewrote (no source family).
REWRITTEN = "(rewritten)"
TESTIDS = {
    "families": "family-chart",
    "keyed-edit-rates": "keyed-edit-chart",
    "edit-rates": "edit-chart",
    "positions": "position-chart",
}


def _families_visible(user) -> bool:
    return (
        Role.ADMIN in user_roles(user) or AdjudicationSettings.current().show_family_to_arbitrator
    )


def _count_bars(items, total) -> list[plots.Bar]:
    return [
        plots.Bar(
            label,
            n,
            value_text=f"{display.format_count(n)} ({display.format_percent(n / total)})"
            if total
            else display.format_count(n),
        )
        for label, n in items
    ]


def _count_chart(items, total, *, title, x_label, y_label, empty_text) -> plots.Scene:
    if not total:
        return plots.no_data(title, empty_text)
    return plots.hbar_chart(
        _count_bars(items, total),
        title=title,
        x_label=x_label,
        y_label=y_label,
        tick_format=plots.count_ticks,
        integer=True,
    )


def outcome_plots(outcomes, *, families: bool) -> dict[str, plots.Scene]:
    """The page's plots by name (the download URLs use the names)."""
    charts = {}
    if families:
        by_family = display.sort_families(
            [
                ("Rewritten by the arbitrator" if k == REWRITTEN else display.family_label(k), n)
                for k, n in outcomes.references_by_family.items()
            ],
            key=lambda item: item[0],
        )
        charts["families"] = _count_chart(
            by_family,
            sum(n for _, n in by_family),
            title="References by the source family of the adopted candidate",
            x_label="References",
            y_label="Source family",
            empty_text="No pair of the comparison workflow has a reference yet (imported "
            "references are not counted), so there is nothing to plot.",
        )
    keyed = (outcomes.keyed_edit_rate_bins, outcomes.keyed_edit_rates, "keyed final decision")
    for name, (bins, rates, what) in (
        ("keyed-edit-rates", keyed),
        ("edit-rates", (outcomes.edit_rate_bins, outcomes.edit_rates, "all fields")),
    ):
        charts[name] = _count_chart(
            bins,
            len(rates),
            title=f"Distribution of word edit rates, {what}",
            x_label="References",
            y_label="Word edit rate",
            empty_text="No reference has been adopted or edited from a candidate yet, so "
            "there is no edit rate to plot.",
        )
    charts["positions"] = _count_chart(
        [(f"Letter {letter}", n) for letter, n in outcomes.position_counts.items()],
        outcomes.position_total,
        title="Position bias: how often each displayed letter was selected",
        x_label="Selections",
        y_label="Displayed letter",
        empty_text="No annotator has submitted a comparison yet, so there is nothing to plot.",
    )
    return charts


@arbitration_readers
def comparison_outcomes(request):
    outcomes = selectors.comparison_outcomes()
    families = _families_visible(request.user)
    charts = outcome_plots(outcomes, families=families)
    return render(
        request,
        "adjudication/outcomes.html",
        {
            "o": outcomes,
            "families": families,
            "plots": {
                name.replace("-", "_"): page_plot(
                    scene, name=name, url_name="adjudication:outcomes-plot", testid=TESTIDS[name]
                )
                for name, scene in charts.items()
            },
            "table": table_links(
                reverse("adjudication:outcomes-table"),
                name=statistics.COMPARISON_OUTCOMES.name,
                api_url=reverse("adjudication-api:outcome-rows"),
            ),
            "kappa_note": display.small_n_note(outcomes.kappa_items, "pair")
            if outcomes.kappa is not None
            else "",
        },
    )


@arbitration_readers
def comparison_outcomes_plot(request, plot, fmt):
    outcomes = selectors.comparison_outcomes()
    charts = outcome_plots(outcomes, families=_families_visible(request.user))
    return plot_download(charts.get(plot), filename=f"comparison-outcomes-{plot}", fmt=fmt)


@arbitration_readers
def comparison_outcomes_csv(request):
    outcomes = selectors.comparison_outcomes()
    families = _families_visible(request.user)
    response, writer = csv_download("comparison-outcomes.csv")
    writer.writerow(["statistic", "value"])
    for name, value in outcomes.csv_rows():
        if not families and name.startswith("references_from_"):
            continue
        writer.writerow([name, "" if value is None else value])
    return response


@arbitration_readers
def comparison_outcomes_table(request):
    """The outcomes as a tidy table: ``?format=csv`` or ``?format=parquet``."""
    families = _families_visible(request.user)
    return table_download(statistics.comparison_outcomes_table(families=families), request)
