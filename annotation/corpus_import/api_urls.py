"""The import endpoints, under /api/corpus/ in the ``corpus-api`` namespace
(heartbench_site/api_urls.py)."""

from django.urls import path

from annotation.corpus_import import api

urlpatterns = [
    path("imports/", api.ImportJobListApi.as_view(), name="import-list"),
    path("imports/<int:job_id>/", api.ImportJobDetailApi.as_view(), name="import-detail"),
]
