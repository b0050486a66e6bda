"""The human baseline's admin downloads: time on task (for credit or payment, with the
pool ids), the report's CSV, tidy table and plots."""

from django.http import Http404
from django.shortcuts import get_object_or_404

from core.plot_views import plot_download
from core.roles import Role, role_required
from core.tidy_tables import table_download
from core.web import csv_download

from . import selectors, statistics
from .models import BaselineStudy
from .presentation import report_plots
from .report import report_rows

admin_required = role_required(Role.ADMIN)


@admin_required
def time_csv(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    item_rows, sessions = selectors.time_rows(study=study_obj)
    response, writer = csv_download(f"baseline-study-{study_obj.pk}-time.csv")
    writer.writerow(
        ["kind", "participant", "pool", "pool_id", "position", "question_id", "start", "end"]
        + ["seconds"]
    )
    for row in item_rows:
        writer.writerow(
            [
                "item",
                row.participation.user.get_username(),
                row.participation.pool,
                row.participation.pool_id,
                row.position,
                row.study_item.item.question_id,
                "",
                row.answered_at.isoformat() if row.answered_at else "",
                f"{row.seconds:.1f}",
            ]
        )
    for session in sessions:
        writer.writerow(
            [
                "session",
                session.participation.user.get_username(),
                session.participation.pool,
                session.participation.pool_id,
                "",
                "",
                session.started_at.isoformat(),
                session.last_activity_at.isoformat(),
                f"{session.seconds:.1f}",
            ]
        )
    return response


@admin_required
def report_plot(request, study_id, plot, fmt):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    latest = selectors.latest_report(study=study_obj)
    scene = None
    if latest is not None and latest.status == "done":
        scene = report_plots(latest.results).get(plot)
    return plot_download(scene, filename=f"baseline-{study_obj.pk}-report-{plot}", fmt=fmt)


@admin_required
def report_csv(request, study_id):
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    latest = selectors.latest_report(study=study_obj)
    if latest is None or latest.status != "done":
        raise Http404("No finished report yet.")
    response, writer = csv_download(f"baseline-study-{study_obj.pk}-report.csv")
    writer.writerow(["section", "statistic", "estimate", "ci_low", "ci_high"])
    for section, name, value, low, high in report_rows(latest.results):
        writer.writerow(
            [section, name, *("" if v is None else f"{v:.6f}" for v in (value, low, high))]
        )
    return response


@admin_required
def report_table(request, study_id):
    """The latest finished report as a tidy table: ``?format=csv`` or ``?format=parquet``."""
    study_obj = get_object_or_404(BaselineStudy, pk=study_id)
    if statistics.finished_report(study_obj) is None:
        raise Http404("No finished report yet.")
    table = statistics.baseline_report_table(study_obj)
    return table_download(table, request, filename=f"{table.name}_{study_obj.pk}")
