"""REST endpoints of the human baseline's administration, under /api/baseline/ (admins)."""

from django.urls import path

from . import api, api_sources, api_study

app_name = "baseline-api"
urlpatterns = [
    path("sources/", api_sources.SourceCountsApi.as_view(), name="sources"),
    path("families/", api_sources.FamiliesApi.as_view(), name="families"),
    path("predictions/", api_sources.PredictionsApi.as_view(), name="predictions"),
    path("selections/", api.SelectionListApi.as_view(), name="selection-list"),
    path(
        "selections/<int:selection_id>/",
        api.SelectionDetailApi.as_view(),
        name="selection-detail",
    ),
    path(
        "selections/<int:selection_id>/items/",
        api.SelectionItemsApi.as_view(),
        name="selection-items",
    ),
    path("studies/", api.StudyListApi.as_view(), name="study-list"),
    path("studies/<int:study_id>/", api.StudyDetailApi.as_view(), name="study-detail"),
    path("studies/<int:study_id>/status/", api.StudyStatusApi.as_view(), name="study-status"),
    path("studies/<int:study_id>/items/", api.StudyItemsApi.as_view(), name="study-items"),
    path(
        "studies/<int:study_id>/participants/",
        api_study.ParticipantsApi.as_view(),
        name="participants",
    ),
    path("studies/<int:study_id>/time/", api_study.TimeOnTaskApi.as_view(), name="time"),
    path(
        "studies/<int:study_id>/best-model/",
        api_study.BestModelApi.as_view(),
        name="best-model",
    ),
    path("studies/<int:study_id>/report/", api_study.ReportApi.as_view(), name="report"),
]
