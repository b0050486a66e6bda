from django.urls import include, path

urlpatterns = [
    path("corpus/", include("annotation.api_urls")),
]
