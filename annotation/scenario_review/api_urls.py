"""Scenario review's and the blueprints' REST endpoints, under /api/review/ in the
``review-api`` namespace, which they share with profile review: ``heartbench_site.api_urls``
composes both."""

from django.urls import path

from annotation.scenario_review import api

urlpatterns = [
    path("scenarios/", api.ScenarioQueueApi.as_view(), name="scenario-list"),
    path("scenario-coverage/", api.ScenarioCoverageApi.as_view(), name="scenario-coverage"),
    path("blueprints/", api.BlueprintListApi.as_view(), name="blueprint-list"),
    path("blueprints/<int:id>/", api.BlueprintDetailApi.as_view(), name="blueprint-detail"),
    path(
        "scenarios/<str:scenario_id>/",
        api.ScenarioReviewDetailApi.as_view(),
        name="scenario-review",
    ),
    path(
        "scenarios/<str:scenario_id>/ratings/",
        api.ScenarioRatingApi.as_view(),
        name="scenario-rate",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/",
        api.ScenarioReassessApi.as_view(),
        name="scenario-reassess",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/confirm/",
        api.ScenarioReassessConfirmApi.as_view(),
        name="scenario-reassess-confirm",
    ),
]
