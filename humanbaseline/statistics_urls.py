"""The human-baseline report's tidy rows (issue #23), under /api/baseline/statistics/
(namespace "baseline-statistics-api")."""

from django.urls import path

from . import statistics

app_name = "baseline-statistics-api"
urlpatterns = [
    path(
        "studies/<int:study_id>/report/rows/",
        statistics.BaselineReportRowsApi.as_view(),
        name="report-rows",
    ),
]
