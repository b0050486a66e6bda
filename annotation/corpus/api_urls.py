"""The corpus endpoints; the site composes them with the import endpoints into the
``corpus-api`` namespace under /api/corpus/ (heartbench_site/api_urls.py)."""

from django.urls import path

from annotation.corpus import api

urlpatterns = [
    path("characters/", api.CharacterListApi.as_view(), name="character-list"),
    path("characters/<str:key>/", api.CharacterDetailApi.as_view(), name="character-detail"),
    path("memories/", api.MemoryListApi.as_view(), name="memory-list"),
    path("memories/<str:memory_id>/", api.MemoryDetailApi.as_view(), name="memory-detail"),
    path("scenarios/", api.ScenarioListApi.as_view(), name="scenario-list"),
    path("scenarios/<str:scenario_id>/", api.ScenarioDetailApi.as_view(), name="scenario-detail"),
]
