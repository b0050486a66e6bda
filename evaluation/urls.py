"""Model evaluation runs (seed 000 §3.1, App. E-I, L.1), under /evaluation/."""

from django.urls import path

from . import analysis_views, views

app_name = "evaluation"
urlpatterns = [
    path("", views.run_list, name="run-list"),
    path("runs/<int:run_id>/", views.run_detail, name="run-detail"),
    path("runs/<int:run_id>/resume/", views.run_resume, name="run-resume"),
    path("runs/<int:run_id>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:run_id>/retry/", views.run_retry, name="run-retry"),
    path("runs/<int:run_id>/predictions.csv", views.predictions_csv, name="run-csv"),
    path(
        "runs/<int:run_id>/predictions/<int:prediction_id>/",
        views.prediction_detail,
        name="prediction-detail",
    ),
    path("import/", views.prediction_import, name="import"),
    path("analysis/", views.analysis_page, name="analysis"),
    path("analysis.csv", views.analysis_csv, name="analysis-csv"),
    path("analysis/table/", analysis_views.analysis_table, name="analysis-table"),
    path("analysis/plots/<slug:plot>.<slug:fmt>", views.analysis_plot, name="analysis-plot"),
]
