from django.urls import path

from . import comparison_api as api

app_name = "comparison-api"
urlpatterns = [
    path("", api.ComparisonQueueApi.as_view(), name="queue"),
    path("<uuid:assignment>/", api.ComparisonPairApi.as_view(), name="pair"),
]
