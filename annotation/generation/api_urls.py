"""Candidate generation endpoints, admin only: /api/generation/ (heartbench_site/api_urls.py)."""

from django.urls import path

from annotation.generation import api

app_name = "generation-api"
urlpatterns = [
    path("gates/", api.GenerationGatesApi.as_view(), name="gates"),
    path("runs/", api.GenerationRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.GenerationRunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", api.GenerationRunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/retry/", api.GenerationRunRetryApi.as_view(), name="run-retry"),
    path("runs/<int:run_id>/units/", api.GenerationUnitListApi.as_view(), name="unit-list"),
]
