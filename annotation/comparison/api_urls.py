from django.urls import path

from annotation.comparison import api

app_name = "comparison-api"
urlpatterns = [
    path("", api.ComparisonQueueApi.as_view(), name="queue"),
    path("<uuid:assignment>/", api.ComparisonPairApi.as_view(), name="pair"),
]
