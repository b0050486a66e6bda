"""The matched-information human baseline (seed 000 §3.2, App. J), under /baseline/."""

from django.urls import path

from . import admin_views, downloads, views

app_name = "baseline"
urlpatterns = [
    path("", views.home, name="home"),
    path("join/<uuid:token>/", views.join, name="join"),
    path("s/<int:study_id>/", views.study, name="study"),
    path("s/<int:study_id>/consent/", views.consent, name="consent"),
    path("s/<int:study_id>/briefing/", views.briefing, name="briefing"),
    path("s/<int:study_id>/practice/<int:position>/", views.practice, name="practice"),
    path("s/<int:study_id>/start/", views.start, name="start"),
    path("s/<int:study_id>/items/<int:position>/", views.item, name="item"),
    path("s/<int:study_id>/items/<int:position>/time/", views.item_time, name="item-time"),
    path("s/<int:study_id>/finalize/", views.finalize, name="finalize"),
    path("s/<int:study_id>/withdraw/", views.withdraw, name="withdraw"),
    path("admin/", admin_views.admin_overview, name="admin"),
    path("admin/families/", admin_views.families, name="families"),
    path("admin/predictions/", admin_views.predictions, name="predictions"),
    path("admin/selections/new/", admin_views.selection_create, name="selection-create"),
    path(
        "admin/selections/<int:selection_id>/",
        admin_views.selection_detail,
        name="selection-detail",
    ),
    path("admin/studies/new/", admin_views.study_create, name="study-create"),
    path("admin/studies/<int:study_id>/", admin_views.study_detail, name="study-detail"),
    path(
        "admin/studies/<int:study_id>/participants/",
        admin_views.participant_create,
        name="participant-create",
    ),
    path(
        "admin/studies/<int:study_id>/completion/",
        admin_views.study_completion,
        name="study-completion",
    ),
    path("admin/studies/<int:study_id>/status/", admin_views.study_status, name="study-status"),
    path(
        "admin/studies/<int:study_id>/participants/<int:participation_id>/erase/",
        admin_views.participant_erase,
        name="participant-erase",
    ),
    path(
        "admin/studies/<int:study_id>/practice/<int:position>/reason/",
        admin_views.practice_reason,
        name="practice-reason",
    ),
    path("admin/studies/<int:study_id>/best-model/", admin_views.best_model, name="best-model"),
    path("admin/studies/<int:study_id>/time.csv", downloads.time_csv, name="time-csv"),
    path("admin/studies/<int:study_id>/report/", admin_views.report, name="report"),
    path("admin/studies/<int:study_id>/report.csv", downloads.report_csv, name="report-csv"),
    path(
        "admin/studies/<int:study_id>/report/table/",
        downloads.report_table,
        name="report-table",
    ),
    path(
        "admin/studies/<int:study_id>/report/plots/<slug:plot>.<slug:fmt>",
        downloads.report_plot,
        name="report-plot",
    ),
]
