"""Blinded three-candidate comparison (seed 000 §2.4 Stage 2), under /compare/ in the
``comparison`` namespace; the site's ``urls.py`` adds the comparison page and the
assignment page (``adjudication.consensus.urls``).

Annotator URLs carry the assignment's opaque UUID only: no pair, candidate or run id."""

from django.urls import path

from annotation.comparison import views

urlpatterns = [
    path("", views.comparison_queue, name="queue"),
    path("<uuid:assignment>/draft/", views.comparison_draft, name="draft"),
    path(
        "<uuid:assignment>/memories/<str:memory_id>/",
        views.comparison_memory,
        name="memory",
    ),
    path("screen/", views.comparison_screen, name="screen"),
]
