"""Candidate screening for identity leaks (issue 22), under /screening/ (admins only)."""

from django.urls import path

from annotation.candidate_screening import views

app_name = "screening"
urlpatterns = [
    path("", views.flag_list, name="flags"),
    path("flags/<int:flag_id>/", views.flag_detail, name="flag"),
    path("flags/<int:flag_id>/clean/", views.flag_clean, name="clean"),
    path("flags/<int:flag_id>/accept/", views.flag_accept, name="accept"),
]
