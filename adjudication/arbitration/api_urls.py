from django.urls import path

from adjudication.arbitration import api, api_writes, statistics_api

app_name = "adjudication-api"
urlpatterns = [
    path("outcomes/", api.ComparisonOutcomesApi.as_view(), name="outcomes"),
    path("pairs/", api.ArbitrationPairListApi.as_view(), name="pairs"),
    path("pairs/<int:pair_id>/", api.ArbitrationPairApi.as_view(), name="pair"),
    path(
        "pairs/<int:pair_id>/decision/", api_writes.ArbitrationDecisionApi.as_view(), name="decide"
    ),
    path("pairs/<int:pair_id>/reopen/", api_writes.ArbitrationReopenApi.as_view(), name="reopen"),
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
