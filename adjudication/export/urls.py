"""Export of the final MCQ set and the statistics (admins), under /export/."""

from django.urls import path

from adjudication.export import views as export_views

app_name = "export"
urlpatterns = [
    path("", export_views.export_home, name="home"),
    path("start/", export_views.export_start, name="start"),
    path("jobs/<int:job_id>/download/", export_views.export_job_download, name="job-download"),
    # The former direct download: redirects to the newest finished final-set job.
    path("heartbench-final-set.zip", export_views.export_download, name="download"),
]
