"""REST endpoints of evaluation runs, under /api/evaluation/."""

from django.urls import path

from . import statistics_api
from .api import imports, predictions, runs

app_name = "evaluation-api"
urlpatterns = [
    path("runs/", runs.EvaluationRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", runs.EvaluationRunDetailApi.as_view(), name="run-detail"),
    path(
        "runs/<int:run_id>/resume/",
        runs.EvaluationRunResumeApi.as_view(),
        name="run-resume",
    ),
    path("runs/<int:run_id>/retry/", runs.EvaluationRunRetryApi.as_view(), name="run-retry"),
    path("runs/<int:run_id>/cancel/", runs.EvaluationRunCancelApi.as_view(), name="run-cancel"),
    path(
        "runs/<int:run_id>/predictions/",
        predictions.EvaluationPredictionListApi.as_view(),
        name="prediction-list",
    ),
    path(
        "runs/<int:run_id>/predictions/<int:prediction_id>/",
        predictions.EvaluationPredictionDetailApi.as_view(),
        name="prediction-detail",
    ),
    path("import/", imports.PredictionImportApi.as_view(), name="import"),
]

# Tidy statistics rows (issue #23), the JSON twin of the analysis page's downloads.
urlpatterns += [
    path(
        "analysis/rows/",
        statistics_api.EvaluationAnalysisRowsApi.as_view(),
        name="analysis-rows",
    ),
]
