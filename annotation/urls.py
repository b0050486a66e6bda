from django.urls import path

from . import views

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
]
