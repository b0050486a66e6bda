"""The comparison page of an assignment and the admin's assignment page, in the
``comparison`` namespace under /compare/ (composed with ``annotation.comparison.urls`` by
the site's ``urls.py``)."""

from django.urls import path

from adjudication.consensus import views

urlpatterns = [
    path("assign/", views.comparison_assign, name="assign"),
    path("<uuid:assignment>/", views.comparison_pair, name="pair"),
]
