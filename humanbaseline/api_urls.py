"""REST endpoints of the human baseline's administration, under /api/baseline/ (admins)."""

from django.urls import path

from .api import best_model, participants, reports, selections, sources, studies, time_on_task

app_name = "baseline-api"
urlpatterns = [
    path("sources/", sources.SourceCountsApi.as_view(), name="sources"),
    path("families/", sources.FamiliesApi.as_view(), name="families"),
    path("predictions/", sources.PredictionsApi.as_view(), name="predictions"),
    path("selections/", selections.SelectionListApi.as_view(), name="selection-list"),
    path(
        "selections/<int:selection_id>/",
        selections.SelectionDetailApi.as_view(),
        name="selection-detail",
    ),
    path(
        "selections/<int:selection_id>/items/",
        selections.SelectionItemsApi.as_view(),
        name="selection-items",
    ),
    path("studies/", studies.StudyListApi.as_view(), name="study-list"),
    path("studies/<int:study_id>/", studies.StudyDetailApi.as_view(), name="study-detail"),
    path("studies/<int:study_id>/status/", studies.StudyStatusApi.as_view(), name="study-status"),
    path("studies/<int:study_id>/items/", studies.StudyItemsApi.as_view(), name="study-items"),
    path(
        "studies/<int:study_id>/participants/",
        participants.ParticipantsApi.as_view(),
        name="participants",
    ),
    path("studies/<int:study_id>/time/", time_on_task.TimeOnTaskApi.as_view(), name="time"),
    path(
        "studies/<int:study_id>/best-model/",
        best_model.BestModelApi.as_view(),
        name="best-model",
    ),
    path("studies/<int:study_id>/report/", reports.ReportApi.as_view(), name="report"),
]
