"""REST endpoints of the construction-stage reviews (issue 6), under /api/review/."""

from django.urls import path

from annotation.profile_review import api

app_name = "review-api"
urlpatterns = [
    path("profiles/", api.ProfileQueueApi.as_view(), name="profile-list"),
    path("profile-outcomes/", api.ProfileOutcomesApi.as_view(), name="profile-outcomes"),
    path("profiles/<str:key>/", api.ProfileReviewDetailApi.as_view(), name="profile-review"),
    path(
        # The key comes last: the browsable API's breadcrumb then never repeats it.
        "change-requests/<str:key>/",
        api.ChangeRequestCreateApi.as_view(),
        name="change-request-create",
    ),
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
]
