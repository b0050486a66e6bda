"""The import pages, under /corpus/ in the ``corpus`` namespace (heartbench_site/urls.py)."""

from django.urls import path

from annotation.corpus_import import views

urlpatterns = [
    path("import/", views.import_upload, name="import"),
    path("import/<int:job_id>/", views.import_job_detail, name="import-job"),
]
