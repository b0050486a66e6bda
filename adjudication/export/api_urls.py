"""REST endpoints of the export jobs, under /api/exports/ (admins)."""

from django.urls import path

from adjudication.export import api

app_name = "export-api"
urlpatterns = [
    path("", api.ExportJobListApi.as_view(), name="jobs"),
    path("<int:job_id>/", api.ExportJobDetailApi.as_view(), name="job"),
    path("<int:job_id>/download/", api.ExportJobDownloadApi.as_view(), name="job-download"),
]
