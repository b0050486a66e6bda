"""A judge run's calibration report (issue 22) as a tidy table
(core.tidy_tables): one row per figure, the columns of the report page's CSV plus
the run's id, for the page's CSV and Parquet downloads, the API rows and the statistics
export. Admins only (the judge's output never reaches annotators)."""

from django.urls import path

from adjudication.judging.report_views import report_rows, stored_report_or_404
from core.report_downloads import FiguresBeingComputed, FiguresNotReady, not_ready_response
from core.roles import Role, role_required
from core.tidy_tables import TidySpec, TidyTable, table_download, tidy_api

JUDGE_REPORT = TidySpec(
    "judge_report",
    {
        "judge_run_id": int,
        "section": str,
        "figure": str,
        "estimate": float,
        "ci_low": float,
        "ci_high": float,
        "ci_level": float,
        "n": int,
        "note": str,
    },
    "One row per figure of the judge run's calibration report (selection agreement, "
    "agreement with the adjudicated outcome, replace one expert, position consistency, "
    "self-preference, rating calibration), with its interval and n.",
)


def judge_report_table(report) -> TidyTable:
    return JUDGE_REPORT.table(
        {
            "judge_run_id": report.run.pk,
            "section": row.section,
            "figure": row.figure,
            "estimate": row.estimate,
            "ci_low": row.ci_low,
            "ci_high": row.ci_high,
            "ci_level": row.ci_level,
            "n": row.n,
            "note": row.note,
        }
        for rows in report_rows(report).values()
        for row in rows
    )


def judge_report_or_404(run_id: int):
    """The stored report (the page's figures); 409 for the API before it is computed."""
    try:
        return stored_report_or_404(run_id)
    except FiguresNotReady as exc:
        raise FiguresBeingComputed() from exc


@role_required(Role.ADMIN)
def judge_report_download(request, run_id):
    """The report page's table, tidy: ``?format=csv`` or ``?format=parquet``."""
    try:
        report = stored_report_or_404(run_id)
    except FiguresNotReady:
        return not_ready_response()
    table = judge_report_table(report)
    return table_download(table, request, filename=f"{table.name}_{run_id}")


JudgeReportRowsApi = tidy_api(
    JUDGE_REPORT,
    lambda request, run_id: judge_report_table(judge_report_or_404(run_id)),
    roles=[Role.ADMIN],
    summary="A judge run's calibration report as tidy rows",
    description=JUDGE_REPORT.description,
    example={
        "judge_run_id": 1,
        "section": "selection",
        "figure": "mean Cohen's kappa, judge vs annotators",
        "estimate": 0.42,
        "ci_low": 0.3,
        "ci_high": 0.53,
        "ci_level": 0.95,
        "n": 120,
        "note": None,
    },
    not_found=True,
)

#: Under /api/judging/ (namespace "judging-api").
app_name = "judging-api"
urlpatterns = [
    path("runs/<int:run_id>/report/rows/", JudgeReportRowsApi.as_view(), name="report-rows"),
]
