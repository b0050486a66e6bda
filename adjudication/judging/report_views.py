"""The calibration report of a judge run (issue 22): its page, its tidy CSV (one row per
figure: estimate, interval, n, note) and its plots. Thin: a worker computes the figures
once per set of inputs (:mod:`adjudication.judging.stored_reports`), the page and every
download read that stored report (a request never computes a figure: before the first
computation the page says so and the downloads answer 409), :func:`report_rows` lays the
figures out once for both the page and the CSV, :func:`report_plots` draws.

!!! BLINDING !!!  Admins only, as the run pages (views.py): the judge's output never
reaches annotators, and the arbitrator's decisions must not be swayed by it.
"""

import math
from dataclasses import dataclass

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse

from adjudication.judging import stored_reports
from adjudication.judging.models import JudgeRun
from adjudication.judging.report import FAMILIES, JudgeReport
from agreement import BootstrapEstimate
from annotation.comparison.models import COMPARISON_LETTERS
from core import display, plots
from core.plot_views import page_plot, plot_download
from core.report_downloads import FiguresNotReady, not_ready_response
from core.roles import Role, role_required
from core.tidy_tables import table_links
from core.web import csv_download

admin_required = role_required(Role.ADMIN)
NOT_COMPUTABLE = "not computable: "

#: The report's sections, in page order: (figure key of the selector, heading).
SECTIONS = {
    "selection": "Agreement on the selection: the judge beside the annotators",
    "outcome": "Agreement with the adjudicated outcome",
    "replace": "Replace one expert",
    "position": "Position consistency and position bias",
    "self_preference": "Self-preference",
    "rating": "Rating calibration",
}
#: What each section's table shows (its caption).
CAPTIONS = {
    "selection": "Cohen's κ between the judge (its first order) and each annotator slot, "
    "averaged, beside the annotators' own agreement on the same pairs.",
    "outcome": "Pairs whose reference came from a candidate (adopted unanimously, or adopted "
    "or edited by the arbitrator) and whose selected candidate was that source; rewritten "
    "and discarded pairs are left out.",
    "replace": "The judge takes each annotator slot in turn and the consensus-then-arbitration "
    "routing (App. D.2) is applied again. Counts are pairs; a pair newly sent to "
    "arbitration is the arbitrator's to decide and does not count as a reference change.",
    "position": "Every order of every pair: how often the judge kept its candidate when the "
    "letters changed, and which displayed letter it chose.",
    "self_preference": "How often the judge selected the candidate of its own model family "
    "(mean over orders, then pairs), against the annotators on the same pairs.",
    "rating": "Scores: flagged = 0, partial revisions = 1, as-is = 2, each a rating of the "
    "selected candidate, so only ratings of the same candidate are compared: the one the "
    "judge selected in its first order. The judge's score is its mean over the orders that "
    "selected it, the annotators' their mean over those who selected it; a pair where no "
    "annotator selected it is left out. p-values are those of the tests on the pairs "
    "compared; the line is the least-squares fit human = a + b · judge.",
}
#: The plot each section shows (names in the download URLs).
SECTION_PLOTS = {
    "selection": "kappa",
    "outcome": "outcome",
    "replace": "replace",
    "position": "position",
    "self_preference": "self-preference",
    "rating": "rating",
}
CSV_HEADER = ("section", "figure", "estimate", "ci_low", "ci_high", "ci_level", "n", "note")


@dataclass(frozen=True)
class FigureRow:
    """One figure of the report. ``kind`` says how to print it: coefficient, percent,
    points (a difference of shares), count, p (a p-value) or number."""

    section: str
    figure: str
    estimate: float | None
    kind: str
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    ci_level: float | None = None
    note: str = ""

    @property
    def not_computable(self) -> bool:
        return self.note.startswith(NOT_COMPUTABLE)

    @property
    def shown(self) -> str:
        return _format(self.estimate, self.kind)

    @property
    def interval(self) -> str:
        if self.ci_low is None or self.ci_high is None:
            return ""
        low, high = _format(self.ci_low, self.kind), _format(self.ci_high, self.kind)
        return f"{self.ci_level:.0%} CI {low} to {high}"

    def csv(self) -> list:
        return [
            self.section,
            self.figure,
            *("" if _missing(v) else v for v in (self.estimate, self.ci_low, self.ci_high)),
            "" if self.ci_level is None else self.ci_level,
            self.n,
            self.note,
        ]


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _format(value, kind: str) -> str:
    if _missing(value):
        return "—"
    if kind == "percent":
        return display.format_percent(value)
    if kind == "points":
        return display.format_points(value)
    if kind == "count":
        return display.format_count(value)
    if kind == "p":
        return "< 0.001" if value < 0.001 else display.format_coefficient(value)
    return display.format_coefficient(value)


def _estimate_row(section, figure, estimate: BootstrapEstimate, kind, n, note="") -> FigureRow:
    notes = [note] if note else []
    if estimate.n_undefined:
        notes.append(
            f"{estimate.n_undefined:,} of {estimate.n_boot:,} resamples had no value and are "
            "left out of the interval."
        )
    if _missing(estimate.estimate):
        notes.insert(0, NOT_COMPUTABLE + "undefined on these pairs.")
    return FigureRow(
        section,
        figure,
        estimate.estimate,
        kind,
        n,
        estimate.ci_low,
        estimate.ci_high,
        estimate.ci_level if estimate.ci_low is not None else None,
        " ".join(notes),
    )


def _slot(s: int) -> str:
    return f"annotator slot {s + 1}"


def report_rows(report: JudgeReport) -> dict[str, list[FigureRow]]:
    """Every figure of the report by section; a figure the selector could not compute is
    one row without an estimate whose note says why."""
    rows = {}
    for key, heading in SECTIONS.items():
        result = report.figures.get(key)
        if result is None:
            why = report.notes.get(key) or report.notes.get("all", "")
            rows[key] = [
                FigureRow(
                    heading, heading, None, "number", report.n_pairs, note=NOT_COMPUTABLE + why
                )
            ]
            continue
        rows[key] = list(_section_rows(key, heading, result))
    return rows


def _section_rows(key, h, r):
    if key == "selection":
        yield _estimate_row(
            h,
            "Judge–human κ (mean Cohen's κ over the slots)",
            r.judge_human_kappa,
            "coefficient",
            r.n,
        )
        for s, kappa in enumerate(r.judge_kappa_by_slot):
            yield FigureRow(h, f"Judge–{_slot(s)} Cohen's κ", kappa, "coefficient", r.n)
        yield _estimate_row(h, "Human–human Fleiss' κ", r.human_fleiss_kappa, "coefficient", r.n)
        yield _estimate_row(
            h, "Human–human κ (mean pairwise Cohen's κ)", r.human_pairwise_kappa, "coefficient", r.n
        )
        yield _estimate_row(
            h,
            "Difference: judge–human minus human–human pairwise κ",
            r.difference,
            "coefficient",
            r.n,
        )
    elif key == "outcome":
        yield _estimate_row(h, "Judge selected the reference's source", r.judge, "percent", r.n)
        yield _estimate_row(
            h, "Annotators selected the reference's source (pooled)", r.humans, "percent", r.n
        )
        for s, share in enumerate(r.human_by_slot):
            yield FigureRow(
                h, f"The {_slot(s)} selected the reference's source", share, "percent", r.n
            )
    elif key == "replace":
        for s in range(len(r.to_arbitration)):
            yield FigureRow(
                h,
                f"Judge as {_slot(s)}: adopted pairs sent to arbitration",
                r.to_arbitration[s],
                "count",
                r.n,
            )
            yield FigureRow(
                h, f"Judge as {_slot(s)}: escalated pairs adopted", r.to_adoption[s], "count", r.n
            )
            yield FigureRow(
                h,
                f"Judge as {_slot(s)}: adopted with another reference",
                r.reference_changed[s],
                "count",
                r.n,
            )
        yield _estimate_row(
            h,
            "Routing changed (share of pairs, mean over the slots)",
            r.routing_changed_share,
            "percent",
            r.n,
        )
        yield _estimate_row(
            h,
            "Reference changed (share of pairs, mean over the slots)",
            r.reference_changed_share,
            "percent",
            r.n,
        )
    elif key == "position":
        if r.consistent is None:
            yield FigureRow(
                h,
                "Position consistency (same candidate in every order)",
                None,
                "percent",
                r.n,
                note=NOT_COMPUTABLE + "the run shows each pair in one order only.",
            )
        else:
            yield _estimate_row(
                h,
                "Position consistency (same candidate in every order)",
                r.consistent,
                "percent",
                r.n,
            )
        selections = r.n * r.n_orders
        for letter, count, share in zip(
            COMPARISON_LETTERS, r.letter_counts, r.letter_shares, strict=True
        ):
            yield _estimate_row(
                h,
                f"Judge selected letter {letter}",
                share,
                "percent",
                r.n,
                f"{count:,} of {selections:,} selections.",
            )
        yield FigureRow(
            h,
            "Chi-square p-value against a uniform choice of letter",
            r.chi2_p,
            "p",
            r.n,
            note="Descriptive: one pair's selections are not independent.",
        )
    elif key == "self_preference":
        yield _estimate_row(
            h, "Judge selected its own family's candidate", r.judge_rate, "percent", r.n
        )
        yield _estimate_row(
            h, "Annotators selected the judge's family's candidate", r.human_rate, "percent", r.n
        )
        yield _estimate_row(h, "Difference: judge minus annotators", r.difference, "points", r.n)
    elif key == "rating":
        a = r.agreement
        yield _estimate_row(h, "Pearson r", r.pearson, "coefficient", r.n, _p(a.pearson_p))
        yield _estimate_row(h, "Spearman ρ", r.spearman, "coefficient", r.n, _p(a.spearman_p))
        yield _estimate_row(h, "Kendall τ-b", r.kendall, "coefficient", r.n, _p(a.kendall_p))
        yield FigureRow(h, "Pearson p-value", a.pearson_p, "p", r.n)
        yield FigureRow(h, "Spearman p-value", a.spearman_p, "p", r.n)
        yield FigureRow(h, "Kendall p-value", a.kendall_p, "p", r.n)
        yield _estimate_row(
            h, "Mean bias (judge minus annotators, score points)", r.bias, "coefficient", r.n
        )
        yield FigureRow(h, "Judge mean score", a.judge_mean, "coefficient", r.n)
        yield FigureRow(h, "Annotators' mean score", a.human_mean, "coefficient", r.n)
        yield FigureRow(
            h, "Calibration intercept a (human = a + b · judge)", a.intercept, "coefficient", r.n
        )
        yield FigureRow(
            h, "Calibration slope b (human = a + b · judge)", a.slope, "coefficient", r.n
        )


def _p(p) -> str:
    return f"p = {_format(p, 'p')}" if p is not None else ""


def rating_cells(report: JudgeReport):
    """The scatter of judge score against the annotators' mean as a table: the distinct
    scores (columns: annotators' mean, rows: judge), how many pairs fall in each cell, and
    the fitted line's value per judge score."""
    rating = report.figures.get("rating")
    if rating is None:
        return None
    judge = [round(float(v), 3) for v in rating.judge_scores]
    human = [round(float(v), 3) for v in rating.human_scores]
    columns = sorted(set(human))
    rows = []
    for x in sorted(set(judge)):
        counts = [
            sum(1 for j, h in zip(judge, human, strict=True) if j == x and h == y) for y in columns
        ]
        rows.append((x, counts, float(rating.agreement.calibrate(x))))
    return {"columns": columns, "rows": rows}


# --- plots ------------------------------------------------------------------------------------


#: A section's plot when none of its figures has a value (the table says why for each).
UNDEFINED = (
    "No figure of this section has a value, so there is nothing to plot: the table above says why."
)


def _coefficient_ticks(value: float) -> str:
    return display.format_coefficient(value, 1)


def _bar(label, estimate: BootstrapEstimate, fmt) -> plots.Bar:
    value = None if _missing(estimate.estimate) else estimate.estimate
    return plots.Bar(
        label,
        value,
        low=estimate.ci_low,
        high=estimate.ci_high,
        value_text="" if value is None else fmt(value),
    )


def report_plots(report: JudgeReport) -> dict[str, plots.Scene]:
    """The page's plots by name (the download URLs use the names)."""
    f = report.figures
    coefficient, percent = display.format_coefficient, display.format_percent
    charts = {}
    if "selection" in f:
        s = f["selection"]
        charts["kappa"] = plots.hbar_chart(
            [
                _bar("Judge–human (mean Cohen's κ)", s.judge_human_kappa, coefficient),
                _bar("Human–human (mean pairwise Cohen's κ)", s.human_pairwise_kappa, coefficient),
                _bar("Human–human (Fleiss' κ)", s.human_fleiss_kappa, coefficient),
            ],
            title="Agreement on the selection: κ of the judge beside the annotators",
            x_label="κ",
            y_label="Agreement",
            tick_format=_coefficient_ticks,
            x_range=(-1.0, 1.0),
            empty_text=UNDEFINED,
        )
    if "outcome" in f:
        o = f["outcome"]
        charts["outcome"] = plots.hbar_chart(
            [
                _bar("Judge", o.judge, percent),
                _bar("Annotators (pooled)", o.humans, percent),
            ],
            title="Selections of the adjudicated reference's source candidate",
            x_label="Share of the pairs",
            y_label="Who selected",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            empty_text=UNDEFINED,
        )
    if "replace" in f:
        r = f["replace"]
        measures = (
            ("to_arbitration", "Adopted pairs sent to arbitration", plots.PALETTE[0]),
            ("to_adoption", "Escalated pairs adopted", plots.PALETTE[1]),
            ("reference_changed", "Adopted with another reference", plots.PALETTE[2]),
        )
        # One block per slot, named once; one bar per measure, named beside it.
        bars = [
            plots.Bar(
                label,
                getattr(r, name)[s],
                value_text=f"{getattr(r, name)[s]:,}",
                colour=colour,
                group=f"Judge as {_slot(s)}",
            )
            for s in range(len(r.to_arbitration))
            for name, label, colour in measures
        ]
        charts["replace"] = plots.hbar_chart(
            bars,
            title=f"Replace one expert: pairs whose routing or reference changes (of {r.n})",
            x_label="Pairs",
            y_label="Slot the judge takes",
            tick_format=plots.count_ticks,
            x_range=(0.0, float(max(r.n, 1))),
            integer=True,
            empty_text=UNDEFINED,
        )
    if "position" in f:
        p = f["position"]
        bars = [
            _bar(f"Letter {x}", share, percent)
            for x, share in zip(COMPARISON_LETTERS, p.letter_shares, strict=True)
        ]
        if p.consistent is not None:
            bars.append(_bar("Same candidate in every order", p.consistent, percent))
        charts["position"] = plots.hbar_chart(
            bars,
            title="The judge's position bias by letter, and its position consistency",
            x_label="Share",
            y_label="Selections",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            references=[
                plots.Reference(1 / len(COMPARISON_LETTERS), "Chance (one letter in three)")
            ],
            empty_text=UNDEFINED,
        )
    if "self_preference" in f:
        sp = f["self_preference"]
        family = display.family_label(FAMILIES[report.judge_family])
        charts["self-preference"] = plots.hbar_chart(
            [_bar("Judge", sp.judge_rate, percent), _bar("Annotators", sp.human_rate, percent)],
            title=f"Self-preference: selections of the {family} candidate (the judge's family)",
            x_label="Share of the selections",
            y_label="Who selected",
            tick_format=plots.percent_ticks,
            x_range=(0.0, 1.0),
            empty_text=UNDEFINED,
        )
    if "rating" in f:
        ra = f["rating"]
        charts["rating"] = plots.hbar_chart(
            [
                _bar("Pearson r", ra.pearson, coefficient),
                _bar("Spearman ρ", ra.spearman, coefficient),
                _bar("Kendall τ-b", ra.kendall, coefficient),
            ],
            title="Rating: correlation of the judge's score with the annotators' mean",
            x_label="Correlation",
            y_label="Coefficient",
            tick_format=_coefficient_ticks,
            x_range=(-1.0, 1.0),
            empty_text=UNDEFINED,
        )
    return charts


# --- views ------------------------------------------------------------------------------------


def _run_or_404(run_id: int) -> JudgeRun:
    run = JudgeRun.objects.filter(pk=run_id).first()
    if run is None:
        raise Http404("No such judge run.")
    return run


def stored_report_or_404(run_id: int) -> JudgeReport:
    """The stored report a download serves (the page's figures); 404 for no such run,
    :class:`FiguresNotReady` before its first computation."""
    _, report = stored_reports.stored_report(_run_or_404(run_id))
    if report is None:
        raise FiguresNotReady()
    return report


@admin_required
def judge_run_report(request, run_id):
    run = _run_or_404(run_id)
    stored, report = stored_reports.stored_report(run)
    context = {
        "stored": stored,
        "poll_url": request.get_full_path(),
        "report": report,
        "run": run,
        "judge_family": run.judge_family,
        "tidy": table_links(
            reverse("judging:report-table", args=[run_id]),
            name="judge_report",
            api_url=reverse("judging-api:report-rows", args=[run_id]),
        ),
    }
    if report is not None:
        context |= _figures_context(report, run_id)
    return render(request, "judging/report.html", context)


def _figures_context(report: JudgeReport, run_id: int) -> dict:
    note = display.small_n_note(report.n_pairs, "pair") if report.n_pairs else ""
    plots_by_name = {
        name: page_plot(
            scene,
            name=name,
            url_name="judging:report-plot",
            note=note,
            testid=f"report-plot-{name}",  # the tables are report-<section>
            run_id=run_id,
        )
        for name, scene in report_plots(report).items()
    }
    return {
        "sections": [
            {
                "key": key,
                "heading": SECTIONS[key],
                "caption": CAPTIONS[key],
                "rows": rows,
                "computed": key in report.figures,
                "plot": plots_by_name.get(SECTION_PLOTS[key]),
            }
            for key, rows in report_rows(report).items()
        ],
        "rating_cells": rating_cells(report),
        "small_n_note": note,
    }


@admin_required
def judge_run_report_plot(request, run_id, plot, fmt):
    try:
        report = stored_report_or_404(run_id)
    except FiguresNotReady:
        return not_ready_response()
    charts = report_plots(report)
    return plot_download(charts.get(plot), filename=f"judge-run-{run_id}-{plot}", fmt=fmt)


@admin_required
def judge_run_report_csv(request, run_id):
    try:
        report = stored_report_or_404(run_id)
    except FiguresNotReady:
        return not_ready_response()
    response, writer = csv_download(f"judge-run-{run_id}-report.csv")
    writer.writerow(CSV_HEADER)
    for rows in report_rows(report).values():
        for row in rows:
            writer.writerow(row.csv())
    return response
