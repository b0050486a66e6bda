"""The generation pages, under /corpus/ in the ``corpus`` namespace
(heartbench_site/urls.py)."""

from django.urls import path

from annotation.generation import views

urlpatterns = [
    path("generation/", views.generation_run_list, name="generation-list"),
    path("generation/new/", views.generation_run_new, name="generation-new"),
    path("generation/<int:run_id>/", views.generation_run_detail, name="generation-detail"),
    path("generation/<int:run_id>/cancel/", views.generation_run_cancel, name="generation-cancel"),
    path("generation/<int:run_id>/retry/", views.generation_run_retry, name="generation-retry"),
    path("generation/<int:run_id>/resume/", views.generation_run_resume, name="generation-resume"),
    path(
        "generation/<int:run_id>/units/<int:unit_id>/",
        views.generation_unit_detail,
        name="generation-unit",
    ),
    path("generation/prompts/", views.prompt_list, name="prompt-list"),
    path("generation/prompts/<str:stage>/new/", views.prompt_new, name="prompt-new"),
]
