from django.urls import path

from adjudication.arbitration import api

app_name = "adjudication-api"
urlpatterns = [
    path("outcomes/", api.ComparisonOutcomesApi.as_view(), name="outcomes"),
]
