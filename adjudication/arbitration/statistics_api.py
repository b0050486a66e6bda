"""The comparison outcomes and the arbitration analytics as tidy API rows (issue #23): the
same columns as the pages' CSV and Parquet downloads (``statistics``)."""

from adjudication.arbitration import statistics, stored_reports
from adjudication.arbitration.models import AdjudicationSettings
from core.roles import Role, user_roles
from core.tidy_tables import tidy_api


def _outcome_rows(request):
    families = (
        Role.ADMIN in user_roles(request.user)
        or AdjudicationSettings.current().show_family_to_arbitrator
    )
    return statistics.comparison_outcomes_table(families=families)


ComparisonOutcomeRowsApi = tidy_api(
    statistics.COMPARISON_OUTCOMES,
    _outcome_rows,
    roles=[Role.ARBITRATOR, Role.ADMIN],
    summary="Comparison outcomes as tidy rows",
    description=statistics.COMPARISON_OUTCOMES.description
    + " The source-family rows are left out for an arbitrator while the adjudication "
    "settings hide families from arbitrators.",
    example={
        "statistic": "fleiss_kappa",
        "category": None,
        "value": 0.41,
        "ci_low": 0.22,
        "ci_high": 0.58,
        "n": 120,
    },
)

ArbitrationAnalyticsRowsApi = tidy_api(
    statistics.ARBITRATION_ANALYTICS,
    lambda request: statistics.arbitration_analytics_table(
        stored_reports.stored_analytics()[1] or stored_reports.NOT_COMPUTED
    ),
    roles=[Role.ARBITRATOR, Role.ADMIN],
    summary="Arbitration analytics as tidy rows",
    description=statistics.ARBITRATION_ANALYTICS.description,
    example={
        "annotator": "expert-a",
        "statistic": "agreement",
        "hits": 31,
        "n": 40,
        "share": 0.775,
        "ci_low": 0.625,
        "ci_high": 0.877,
        "ci_method": "wilson",
    },
)
