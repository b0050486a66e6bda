"""REST endpoints of MCQ item review and assembly, under /api/items/."""

from django.urls import path

from adjudication.mcq.api import assembly, decisions, drafts, items, queue

app_name = "mcq-api"
urlpatterns = [
    path("queue/", queue.ItemReviewQueueApi.as_view(), name="queue"),
    path("<int:item_id>/", items.ItemDetailApi.as_view(), name="item"),
    path("<int:item_id>/decisions/", decisions.ReviewActionApi.as_view(), name="decide"),
    path("<int:item_id>/revise-draft/", drafts.ReviseDraftApi.as_view(), name="revise-draft"),
    path("<int:item_id>/screen/", items.ScreenItemApi.as_view(), name="screen"),
    path("assembly/", assembly.AssemblyRunListApi.as_view(), name="runs"),
    path("assembly/<int:run_id>/", assembly.AssemblyRunDetailApi.as_view(), name="run"),
]
