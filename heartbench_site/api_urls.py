from django.urls import include, path

from annotation.api_urls import generation_urlpatterns

from . import views

urlpatterns = [
    path("me/", views.api_me, name="api-me"),
    path("corpus/", include("annotation.api_urls")),
    path("generation/", include((generation_urlpatterns, "generation-api"))),
    path("review/", include("annotation.review_api_urls")),
    path("audit/", include("audit.api_urls")),
    path("compare/", include("annotation.comparison_api_urls")),
    path("arbitration/", include("adjudication.api_urls")),
    path("evaluation/", include("evaluation.api_urls")),
    path("items/", include("adjudication.mcq_api")),
]
