"""The observer pages, under /audit/observers/ in the ``audit:observers`` namespace."""

from django.urls import path

from audit.observers import views

app_name = "observers"

urlpatterns = [
    path("", views.observer_run_list, name="runs"),
    path("inventories/", views.inventories, name="inventories"),
    path("new/", views.observer_run_new, name="launch"),
    path("<int:observer_run_id>/", views.observer_run_detail, name="run"),
    path("<int:observer_run_id>/cancel/", views.observer_run_cancel, name="cancel"),
    path("<int:observer_run_id>/resume/", views.observer_run_resume, name="resume"),
    path("<int:observer_run_id>/report/", views.observer_run_report, name="report"),
]
