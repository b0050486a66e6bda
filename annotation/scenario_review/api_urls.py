"""Scenario review's and the blueprints' REST endpoints, under /api/review/ in the
``review-api`` namespace, which they share with profile review: ``heartbench_site.api_urls``
composes both."""

from django.urls import path

from annotation.scenario_review import api, api_writes, statistics

urlpatterns = [
    path("scenarios/", api.ScenarioQueueApi.as_view(), name="scenario-list"),
    path("scenario-coverage/", api.ScenarioCoverageApi.as_view(), name="scenario-coverage"),
    path("blueprints/", api.BlueprintListApi.as_view(), name="blueprint-list"),
    path("scenarios/new/", api_writes.ScenarioCreateApi.as_view(), name="scenario-new"),
    path("blueprints/<int:id>/", api.BlueprintDetailApi.as_view(), name="blueprint-detail"),
    path("blueprints/<int:id>/queue/", api.BlueprintQueueApi.as_view(), name="blueprint-queue"),
    path(
        "scenarios/<str:scenario_id>/",
        api.ScenarioReviewDetailApi.as_view(),
        name="scenario-review",
    ),
    path(
        "scenarios/<str:scenario_id>/screening/",
        api_writes.ScenarioScreenApi.as_view(),
        name="scenario-screen",
    ),
    path(
        "scenarios/<str:scenario_id>/revisions/",
        api_writes.ScenarioReviseApi.as_view(),
        name="scenario-revise",
    ),
    path(
        "scenarios/<str:scenario_id>/ratings/",
        api_writes.ScenarioRatingApi.as_view(),
        name="scenario-rate",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/",
        api_writes.ScenarioReassessApi.as_view(),
        name="scenario-reassess",
    ),
    path(
        "scenarios/<str:scenario_id>/reassessment/confirm/",
        api_writes.ScenarioReassessConfirmApi.as_view(),
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
