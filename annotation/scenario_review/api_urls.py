"""Scenario review's and the blueprints' REST endpoints, under /api/review/ in the
``review-api`` namespace, which they share with profile review: ``heartbench_site.api_urls``
composes both."""

from django.urls import path

from annotation.scenario_review import statistics
from annotation.scenario_review.api import (
    blueprints,
    coverage,
    ratings,
    reassessments,
    revisions,
    scenarios,
    screenings,
)

urlpatterns = [
    path("scenarios/", scenarios.ScenarioQueueApi.as_view(), name="scenario-list"),
    path("scenario-coverage/", coverage.ScenarioCoverageApi.as_view(), name="scenario-coverage"),
    path("blueprints/", blueprints.BlueprintListApi.as_view(), name="blueprint-list"),
    path("scenarios/new/", scenarios.ScenarioCreateApi.as_view(), name="scenario-new"),
    path("blueprints/<int:id>/", blueprints.BlueprintDetailApi.as_view(), name="blueprint-detail"),
    path(
        "blueprints/<int:id>/queue/", blueprints.BlueprintQueueApi.as_view(), name="blueprint-queue"
    ),
    path(
        "scenarios/<str:scenario_id>/",
        scenarios.ScenarioReviewDetailApi.as_view(),
        name="scenario-review",
    ),
    path(
        "scenarios/<str:scenario_id>/screening/",
        screenings.ScenarioScreenApi.as_view(),
        name="scenario-screen",
    ),
    path(
        "scenarios/<str:scenario_id>/revisions/",
        revisions.ScenarioReviseApi.as_view(),
        name="scenario-revise",
    ),
    path(
        "scenarios/<str:scenario_id>/ratings/",
        ratings.ScenarioRatingApi.as_view(),
        name="scenario-rate",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/",
        reassessments.ScenarioReassessApi.as_view(),
        name="scenario-reassess",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/confirm/",
        reassessments.ScenarioReassessConfirmApi.as_view(),
        name="scenario-reassess-confirm",
    ),
]

# Tidy statistics rows (issue #23), the JSON twin of the coverage page's downloads.
urlpatterns += [
    path(
        "scenario-coverage/ratings/rows/",
        statistics.DiamondsFinalRatingRowsApi.as_view(),
        name="coverage-ratings-rows",
    ),
    path(
        "scenario-coverage/life-stages/rows/",
        statistics.ScenariosPerLifeStageRowsApi.as_view(),
        name="coverage-life-stages-rows",
    ),
    path(
        "scenario-coverage/agreement/rows/",
        statistics.DiamondsAgreementRowsApi.as_view(),
        name="coverage-agreement-rows",
    ),
]
