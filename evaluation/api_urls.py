"""REST endpoints of evaluation runs, under /api/evaluation/."""

from django.urls import path

from . import api, api_writes, statistics_api

app_name = "evaluation-api"
urlpatterns = [
    path("runs/", api_writes.EvaluationRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.EvaluationRunDetailApi.as_view(), name="run-detail"),
    path(
        "runs/<int:run_id>/resume/",
        api_writes.EvaluationRunResumeApi.as_view(),
        name="run-resume",
    ),
    path(
        "runs/<int:run_id>/predictions/",
        api.EvaluationPredictionListApi.as_view(),
        name="prediction-list",
    ),
    path(
        "runs/<int:run_id>/predictions/<int:prediction_id>/",
        api.EvaluationPredictionDetailApi.as_view(),
        name="prediction-detail",
    ),
    path("import/", api_writes.PredictionImportApi.as_view(), name="import"),
]

# Tidy statistics rows (issue #23), the JSON twin of the analysis page's downloads.
urlpatterns += [
    path(
        "analysis/rows/",
        statistics_api.EvaluationAnalysisRowsApi.as_view(),
        name="analysis-rows",
    ),
]
