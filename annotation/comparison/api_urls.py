"""The comparison endpoints; the site composes them with the judgment endpoint
(``adjudication.consensus.api_urls``) into the ``comparison-api`` namespace under
/api/compare/ (heartbench_site/api_urls.py)."""

from django.urls import path

from annotation.comparison import api

urlpatterns = [
    path("", api.ComparisonQueueApi.as_view(), name="queue"),
    path("<uuid:assignment>/", api.ComparisonPairApi.as_view(), name="pair"),
    path("<uuid:assignment>/draft/", api.ComparisonDraftApi.as_view(), name="draft"),
]
