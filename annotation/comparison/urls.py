"""Blinded three-candidate comparison (seed 000 §2.4 Stage 2), under /compare/.

Annotator URLs carry the assignment's opaque UUID only: no pair, candidate or run id."""

from django.urls import path

from annotation.comparison import views

app_name = "comparison"
urlpatterns = [
    path("", views.comparison_queue, name="queue"),
    path("assign/", views.comparison_assign, name="assign"),
    path("<uuid:assignment>/", views.comparison_pair, name="pair"),
    path("<uuid:assignment>/draft/", views.comparison_draft, name="draft"),
]
