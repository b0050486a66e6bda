from django.urls import path

from annotation.corpus import api

app_name = "corpus-api"
urlpatterns = [
    path("characters/", api.CharacterListApi.as_view(), name="character-list"),
    path("characters/<str:key>/", api.CharacterDetailApi.as_view(), name="character-detail"),
    path("memories/", api.MemoryListApi.as_view(), name="memory-list"),
    path("memories/<str:memory_id>/", api.MemoryDetailApi.as_view(), name="memory-detail"),
    path("scenarios/", api.ScenarioListApi.as_view(), name="scenario-list"),
    path("scenarios/<str:scenario_id>/", api.ScenarioDetailApi.as_view(), name="scenario-detail"),
    path("imports/", api.ImportJobListApi.as_view(), name="import-list"),
    path("imports/<int:job_id>/", api.ImportJobDetailApi.as_view(), name="import-detail"),
]

# Candidate generation, admin only: included under /api/generation/ as "generation-api".
generation_urlpatterns = [
    path("runs/", api.GenerationRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.GenerationRunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", api.GenerationRunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/retry/", api.GenerationRunRetryApi.as_view(), name="run-retry"),
    path("runs/<int:run_id>/units/", api.GenerationUnitListApi.as_view(), name="unit-list"),
]
