"""The observer pages, under /audit/observers/ in the ``audit:observers`` namespace."""

from django.urls import path

from audit.observers import human_views, views

app_name = "observers"

urlpatterns = [
    path("", views.observer_run_list, name="runs"),
    path("inventories/", views.inventories, name="inventories"),
    path("new/", views.observer_run_new, name="launch"),
    path("<int:observer_run_id>/", views.observer_run_detail, name="run"),
    path("<int:observer_run_id>/cancel/", views.observer_run_cancel, name="cancel"),
    path("<int:observer_run_id>/resume/", views.observer_run_resume, name="resume"),
    path("<int:observer_run_id>/report/", views.observer_run_report, name="report"),
    path("<int:observer_run_id>/people/", human_views.human_observers, name="people"),
    # The observer's own pages (the observer role only).
    path("tasks/", human_views.observer_tasks, name="tasks"),
    path("tasks/<int:task_id>/", human_views.observer_task, name="task"),
    path("tasks/<int:task_id>/draft/", human_views.observer_task_draft, name="task-draft"),
]
