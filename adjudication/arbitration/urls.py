"""Consensus-then-arbitration (seed 000 §2.4 Stage 2, App. D.2), under /arbitration/."""

from django.urls import path

from adjudication.arbitration import analytics_views, outcome_views, views

app_name = "adjudication"
urlpatterns = [
    path("", views.arbitration_queue, name="queue"),
    path("decided/", views.arbitration_decided, name="decided"),
    path("outcomes/", outcome_views.comparison_outcomes, name="outcomes"),
    path("outcomes.csv", outcome_views.comparison_outcomes_csv, name="outcomes-csv"),
    path("outcomes/table/", outcome_views.comparison_outcomes_table, name="outcomes-table"),
    path(
        "outcomes/plots/<slug:plot>.<slug:fmt>",
        outcome_views.comparison_outcomes_plot,
        name="outcomes-plot",
    ),
    path("analytics/", analytics_views.arbitration_analytics, name="analytics"),
    path("analytics.csv", analytics_views.arbitration_analytics_csv, name="analytics-csv"),
    path("analytics/table/", analytics_views.arbitration_analytics_table, name="analytics-table"),
    path(
        "analytics/plots/<slug:plot>.<slug:fmt>",
        analytics_views.arbitration_analytics_plot,
        name="analytics-plot",
    ),
    path("pairs/<int:pair_id>/", views.arbitration_pair, name="pair"),
    path("pairs/<int:pair_id>/reopen/", views.arbitration_reopen, name="reopen"),
]
