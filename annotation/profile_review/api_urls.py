"""Profile review's REST endpoints, under /api/review/ in the ``review-api`` namespace,
which it shares with scenario review: ``heartbench_site.api_urls`` composes both."""

from django.urls import path

from annotation.profile_review import api

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
]
