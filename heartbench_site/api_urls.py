from django.urls import include, path

from annotation.corpus.api_urls import generation_urlpatterns

from . import views

urlpatterns = [
    path("me/", views.api_me, name="api-me"),
    path("corpus/", include("annotation.corpus.api_urls")),
    path("generation/", include((generation_urlpatterns, "generation-api"))),
    path("review/", include("annotation.profile_review.api_urls")),
    path("audit/", include("audit.memory_quality.api_urls")),
    path("compare/", include("annotation.comparison.api_urls")),
    path("arbitration/", include("adjudication.arbitration.api_urls")),
    path("evaluation/", include("evaluation.api_urls")),
    path("items/", include("adjudication.mcq.api")),
]
