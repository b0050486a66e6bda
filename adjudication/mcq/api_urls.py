"""REST endpoints of MCQ item review and assembly, under /api/items/."""

from django.urls import path

from adjudication.mcq import api, api_writes

app_name = "mcq-api"
urlpatterns = [
    path("queue/", api.ItemReviewQueueApi.as_view(), name="queue"),
    path("<int:item_id>/", api.ItemDetailApi.as_view(), name="item"),
    path("<int:item_id>/decisions/", api_writes.ReviewActionApi.as_view(), name="decide"),
    path("<int:item_id>/revise-draft/", api_writes.ReviseDraftApi.as_view(), name="revise-draft"),
    path("<int:item_id>/screen/", api_writes.ScreenItemApi.as_view(), name="screen"),
    path("assembly/", api_writes.AssemblyRunListApi.as_view(), name="runs"),
    path("assembly/<int:run_id>/", api.AssemblyRunDetailApi.as_view(), name="run"),
]
