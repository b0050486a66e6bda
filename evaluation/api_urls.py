"""REST endpoints of evaluation runs, under /api/evaluation/."""

from django.urls import path

from . import api

app_name = "evaluation-api"
urlpatterns = [
    path("runs/", api.EvaluationRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.EvaluationRunDetailApi.as_view(), name="run-detail"),
]
