"""The judge-run pages, under /judging/ in the ``judging`` namespace. The calibration
report (``runs/<run_id>/report/``, ``judging:report``) is added beside them."""

from django.urls import path

from adjudication.judging import report_views, statistics, views

app_name = "judging"

urlpatterns = [
    path("runs/", views.judge_run_list, name="runs"),
    path("runs/new/", views.judge_run_new, name="launch"),
    path("runs/<int:run_id>/", views.judge_run_detail, name="run"),
    path("runs/<int:run_id>/cancel/", views.judge_run_cancel, name="cancel"),
    path("runs/<int:run_id>/resume/", views.judge_run_resume, name="resume"),
    path("runs/<int:run_id>/report/", report_views.judge_run_report, name="report"),
    path("runs/<int:run_id>/report.csv", report_views.judge_run_report_csv, name="report-csv"),
    path(
        "runs/<int:run_id>/report/table/",
        statistics.judge_report_download,
        name="report-table",
    ),
    path(
        "runs/<int:run_id>/report/plots/<slug:plot>.<slug:fmt>",
        report_views.judge_run_report_plot,
        name="report-plot",
    ),
]
