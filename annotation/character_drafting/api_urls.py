"""Character drafting endpoints, admin only: /api/drafting/ (heartbench_site/api_urls.py)."""

from django.urls import path

from annotation.character_drafting import api

app_name = "drafting-api"
urlpatterns = [
    path("jobs/", api.DraftingJobListApi.as_view(), name="job-list"),
    path("jobs/<int:job_id>/", api.DraftingJobDetailApi.as_view(), name="job-detail"),
]
