from django.urls import path

from adjudication.arbitration import statistics_api
from adjudication.arbitration.api import decisions, outcomes, pairs

app_name = "adjudication-api"
urlpatterns = [
    path("outcomes/", outcomes.ComparisonOutcomesApi.as_view(), name="outcomes"),
    path("pairs/", pairs.ArbitrationPairListApi.as_view(), name="pairs"),
    path("pairs/<int:pair_id>/", pairs.ArbitrationPairApi.as_view(), name="pair"),
    path(
        "pairs/<int:pair_id>/decision/", decisions.ArbitrationDecisionApi.as_view(), name="decide"
    ),
    path("pairs/<int:pair_id>/reopen/", decisions.ArbitrationReopenApi.as_view(), name="reopen"),
]

# Tidy statistics rows (issue #23), the JSON twin of the pages' CSV and Parquet downloads.
urlpatterns += [
    path(
        "outcomes/rows/",
        statistics_api.ComparisonOutcomeRowsApi.as_view(),
        name="outcome-rows",
    ),
    path(
        "analytics/rows/",
        statistics_api.ArbitrationAnalyticsRowsApi.as_view(),
        name="analytics-rows",
    ),
]
