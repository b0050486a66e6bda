from django.urls import path

from annotation.corpus import views

app_name = "corpus"
urlpatterns = [
    path("", views.corpus_index, name="index"),
    path("characters/", views.character_list, name="character-list"),
    path("characters/<str:key>/", views.character_detail, name="character-detail"),
    path("memories/<str:memory_id>/", views.memory_detail, name="memory-detail"),
    path("scenarios/", views.scenario_list, name="scenario-list"),
    path("scenarios/<str:scenario_id>/", views.scenario_detail, name="scenario-detail"),
    path("import/", views.import_upload, name="import"),
    path("import/<int:job_id>/", views.import_job_detail, name="import-job"),
    path("generation/", views.generation_run_list, name="generation-list"),
    path("generation/new/", views.generation_run_new, name="generation-new"),
    path("generation/<int:run_id>/", views.generation_run_detail, name="generation-detail"),
    path("generation/<int:run_id>/cancel/", views.generation_run_cancel, name="generation-cancel"),
    path("generation/<int:run_id>/retry/", views.generation_run_retry, name="generation-retry"),
    path(
        "generation/<int:run_id>/units/<int:unit_id>/",
        views.generation_unit_detail,
        name="generation-unit",
    ),
    path("generation/prompts/", views.prompt_list, name="prompt-list"),
    path("generation/prompts/<str:stage>/new/", views.prompt_new, name="prompt-new"),
]
