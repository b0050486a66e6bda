"""The judgment endpoint, composed by the site with ``annotation.comparison.api_urls``
into the ``comparison-api`` namespace under /api/compare/."""

from django.urls import path

from adjudication.consensus import api

urlpatterns = [
    path("<uuid:assignment>/judgment/", api.ComparisonJudgmentApi.as_view(), name="judgment"),
]
