from django.urls import include, path

from adjudication.consensus import api_urls as consensus_api_urls
from annotation.comparison import api_urls as comparison_api_urls
from annotation.corpus import api_urls as corpus_api_urls
from annotation.corpus_import import api_urls as corpus_import_api_urls
from annotation.profile_review import api_urls as profile_review_api_urls
from annotation.scenario_review import api_urls as scenario_review_api_urls
from audit.memory_quality import api_urls as memory_quality_api_urls
from core.web import include_joined

from . import token_views, views

urlpatterns = [
    path("me/", views.api_me, name="api-me"),
    path("auth/token/", token_views.TokenApi.as_view(), name="api-token"),
    path(
        "corpus/",
        include_joined(
            "corpus-api", corpus_api_urls.urlpatterns, corpus_import_api_urls.urlpatterns
        ),
    ),
    path("generation/", include("annotation.generation.api_urls")),
    path("memory-generation/", include("annotation.memory_generation.api_urls")),
    path("drafting/", include("annotation.character_drafting.api_urls")),
    path(
        "review/",
        include_joined(
            "review-api",
            profile_review_api_urls.urlpatterns,
            scenario_review_api_urls.urlpatterns,
        ),
    ),
    path(
        "audit/",
        include_joined(
            "audit-api",
            memory_quality_api_urls.urlpatterns,
            [path("labels/", include("audit.reference_labels.api_urls"))],
        ),
    ),
    path(
        "compare/",
        include_joined(
            "comparison-api", comparison_api_urls.urlpatterns, consensus_api_urls.urlpatterns
        ),
    ),
    path("arbitration/", include("adjudication.arbitration.api_urls")),
    path("evaluation/", include("evaluation.api_urls")),
    path("items/", include("adjudication.mcq.api_urls")),
    path("baseline/statistics/", include("humanbaseline.statistics_urls")),
    path("baseline/", include("humanbaseline.api_urls")),
    path("exports/", include("adjudication.export.api_urls")),
    path("judging/", include("adjudication.judging.statistics")),
    path("blinding/", include("annotation.blinding.statistics")),
]
