"""The human-baseline report (seed 000 App. J, Table 19) as a tidy table
(core.tidy_tables): one row per estimate of the latest finished report, for the
report page's CSV and Parquet downloads, the API rows and the statistics export. Admins
only, as the report page."""

from django.http import Http404

from core.roles import Role
from core.tidy_tables import TidySpec, TidyTable, tidy_api

from . import selectors
from .models import BaselineStudy
from .report import report_rows

BASELINE_REPORT = TidySpec(
    "baseline_report",
    {
        "study_id": int,
        "report_id": int,
        "section": str,
        "statistic": str,
        "estimate": float,
        "ci_low": float,
        "ci_high": float,
    },
    "One row per estimate of the study's latest finished report (humans, agreement, "
    "sources, models), with its 95% interval where the report computes one (joint item × "
    "participant bootstrap).",
)


def finished_report(study: BaselineStudy):
    """The study's latest report if it finished; None while none has."""
    latest = selectors.latest_report(study=study)
    return latest if latest is not None and latest.status == "done" else None


def baseline_report_table(study: BaselineStudy, report=None) -> TidyTable:
    report = report or finished_report(study)
    if report is None:
        return BASELINE_REPORT.table([])
    return BASELINE_REPORT.table(
        {
            "study_id": study.pk,
            "report_id": report.pk,
            "section": section,
            "statistic": name,
            "estimate": value,
            "ci_low": low,
            "ci_high": high,
        }
        for section, name, value, low, high in report_rows(report.results)
    )


def _report_rows(request, study_id):
    study = BaselineStudy.objects.filter(pk=study_id).first()
    if study is None or finished_report(study) is None:
        raise Http404("No such study, or no finished report yet.")
    return baseline_report_table(study)


BaselineReportRowsApi = tidy_api(
    BASELINE_REPORT,
    _report_rows,
    roles=[Role.ADMIN],
    summary="A baseline study's report as tidy rows",
    description=BASELINE_REPORT.description + " 404 while the study has no finished report.",
    example={
        "study_id": 1,
        "report_id": 3,
        "section": "humans",
        "statistic": "mean annotator accuracy",
        "estimate": 0.71,
        "ci_low": 0.66,
        "ci_high": 0.76,
    },
    not_found=True,
)
