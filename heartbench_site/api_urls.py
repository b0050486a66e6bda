from django.urls import include, path

from . import views

urlpatterns = [
    path("me/", views.api_me, name="api-me"),
    path("corpus/", include("annotation.api_urls")),
]
