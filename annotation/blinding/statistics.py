"""The blinding report (issue 22) as a tidy table (core.tidy_tables): one row
per tally of the annotators' family guesses (all, per true family, per annotator), per
displayed letter selected, and the number of assignments with a guess. For the report
page's CSV and Parquet downloads, the API rows and the statistics export. Admins only."""

from django.urls import path

from annotation.blinding import selectors
from core.roles import Role, role_required
from core.tidy_tables import TidySpec, TidyTable, table_download, tidy_api

BLINDING_REPORT = TidySpec(
    "blinding_report",
    {
        "group": str,
        "category": str,
        "n": int,
        "right": int,
        "named_a_family": int,
        "no_idea": int,
        "success_rate": float,
        "wilson_ci_low": float,
        "wilson_ci_high": float,
        "binomial_p_greater_than_chance": float,
        "clustered_ci_low": float,
        "clustered_ci_high": float,
        "clustered_p_greater_than_chance": float,
    },
    "One row per tally of the family guesses: group all, family (the true family) or "
    "annotator; n is the guesses made, success_rate the right share of those that named a "
    "family, with a 95% interval and a one-sided z-test against chance clustered by "
    "assignment (cluster-robust standard error; the three guesses of one assignment are "
    "not independent), and for comparison the 95% Wilson interval and the one-sided exact "
    "binomial test, which treat every guess as independent. Rows of group "
    "position count the displayed letters selected; the row of group assignments counts "
    "the assignments with a guess.",
)


def blinding_report_table(report=None) -> TidyTable:
    report = report or selectors.blinding_report()
    rows = [{"group": "assignments", "n": report.assignments}]
    for group, tallies in (
        ("all", [report.overall]),
        ("family", report.by_family),
        ("annotator", report.by_annotator),
    ):
        for t in tallies:
            ci = t.ci or (None, None)
            ci_c = t.clustered_ci or (None, None)
            rows.append(
                {
                    "group": group,
                    "category": "all" if group == "all" else t.label,
                    "n": t.named + t.no_idea,
                    "right": t.right,
                    "named_a_family": t.named,
                    "no_idea": t.no_idea,
                    "success_rate": t.rate,
                    "wilson_ci_low": ci[0],
                    "wilson_ci_high": ci[1],
                    "binomial_p_greater_than_chance": t.p_value,
                    "clustered_ci_low": ci_c[0],
                    "clustered_ci_high": ci_c[1],
                    "clustered_p_greater_than_chance": t.clustered_p_value,
                }
            )
    rows += [
        {"group": "position", "category": letter, "n": n}
        for letter, n in report.position_counts.items()
    ]
    return BLINDING_REPORT.table(rows)


@role_required(Role.ADMIN)
def blinding_report_download(request):
    """The report as a tidy table: ``?format=csv`` or ``?format=parquet``."""
    return table_download(blinding_report_table(), request)


BlindingReportRowsApi = tidy_api(
    BLINDING_REPORT,
    lambda request: blinding_report_table(),
    roles=[Role.ADMIN],
    summary="The blinding report as tidy rows",
    description=BLINDING_REPORT.description,
    example={
        "group": "family",
        "category": "GPT",
        "n": 40,
        "right": 14,
        "named_a_family": 30,
        "no_idea": 10,
        "success_rate": 0.467,
        "wilson_ci_low": 0.302,
        "wilson_ci_high": 0.638,
        "binomial_p_greater_than_chance": 0.07,
        "clustered_ci_low": 0.291,
        "clustered_ci_high": 0.643,
        "clustered_p_greater_than_chance": 0.08,
    },
)

#: Under /api/blinding/ (namespace "blinding-api").
app_name = "blinding-api"
urlpatterns = [path("report/rows/", BlindingReportRowsApi.as_view(), name="report-rows")]
