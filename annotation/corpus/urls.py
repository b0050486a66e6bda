"""The corpus pages; the site composes them with the import and generation pages into
the ``corpus`` namespace (heartbench_site/urls.py)."""

from django.urls import path

from annotation.corpus import distinctness_views, views

urlpatterns = [
    path("", views.corpus_index, name="index"),
    path("characters/", views.character_list, name="character-list"),
    path("characters/<str:key>/", views.character_detail, name="character-detail"),
    path("memories/<str:memory_id>/", views.memory_detail, name="memory-detail"),
    path("scenarios/", views.scenario_list, name="scenario-list"),
    path("scenarios/<str:scenario_id>/", views.scenario_detail, name="scenario-detail"),
    path("distinctness/", distinctness_views.distinctness, name="distinctness"),
]
