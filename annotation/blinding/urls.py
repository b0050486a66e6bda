"""The blinding check (issue 22): the annotators' optional family question after a final
judgment, and the admin's blinding report, under /blinding/."""

from django.urls import path

from annotation.blinding import statistics, views

app_name = "blinding"
urlpatterns = [
    path("guess/<uuid:assignment>/", views.family_guess, name="guess"),
    path("report/", views.blinding_report, name="report"),
    path("report.csv", views.blinding_report_csv, name="report-csv"),
    path("report/table/", statistics.blinding_report_download, name="report-table"),
    path("report/plots/<slug:plot>.<slug:fmt>", views.blinding_report_plot, name="report-plot"),
]
