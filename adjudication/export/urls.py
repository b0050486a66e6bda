"""Export of the final MCQ set (admins), under /export/."""

from django.urls import path

from adjudication.export import views as export_views

app_name = "export"
urlpatterns = [
    path("", export_views.export_home, name="home"),
    path("heartbench-final-set.zip", export_views.export_download, name="download"),
]
