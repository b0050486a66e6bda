"""REST endpoints of MCQ item review, under /api/items/."""

from django.urls import path

from adjudication.mcq import api

app_name = "mcq-api"
urlpatterns = [path("queue/", api.ItemReviewQueueApi.as_view(), name="queue")]
