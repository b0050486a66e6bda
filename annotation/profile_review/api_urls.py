"""Profile review's REST endpoints, under /api/review/ in the ``review-api`` namespace,
which it shares with scenario review: ``heartbench_site.api_urls`` composes both."""

from django.urls import path

from annotation.profile_review import statistics
from annotation.profile_review.api import (
    adjudications,
    change_requests,
    edits,
    freezes,
    outcomes,
    profiles,
)

urlpatterns = [
    path("profiles/", profiles.ProfileQueueApi.as_view(), name="profile-list"),
    path("profile-outcomes/", outcomes.ProfileOutcomesApi.as_view(), name="profile-outcomes"),
    path("profiles/<str:key>/", profiles.ProfileReviewDetailApi.as_view(), name="profile-review"),
    path(
        # The key comes last: the browsable API's breadcrumb then never repeats it.
        "change-requests/<str:key>/",
        change_requests.ChangeRequestCreateApi.as_view(),
        name="change-request-create",
    ),
    # The key comes last in every URL below too, and no shorter URL that holds it
    # resolves: the browsable API's breadcrumb never repeats it.
    path(
        "change-requests/<int:id>/withdraw/<str:key>/",
        change_requests.ChangeRequestWithdrawApi.as_view(),
        name="change-request-withdraw",
    ),
    path(
        "change-requests/<int:id>/resolve/<str:key>/",
        change_requests.ChangeRequestResolveApi.as_view(),
        name="change-request-resolve",
    ),
    path(
        "profile-adjudication/<str:key>/",
        adjudications.AdjudicationApi.as_view(),
        name="profile-adjudicate",
    ),
    path("profile-edits/<str:key>/", edits.ProfileEditApi.as_view(), name="profile-edit"),
    path(
        "profile-edit-details/<int:id>/",
        edits.ProfileEditDetailApi.as_view(),
        name="profile-edit-detail",
    ),
    path("profile-freeze/<str:key>/", freezes.ProfileFreezeApi.as_view(), name="profile-freeze"),
]

# Tidy statistics rows (issue #23), the JSON twin of the page's CSV and Parquet downloads.
urlpatterns += [
    path(
        "profile-outcomes/rows/",
        statistics.ProfileReviewOutcomeRowsApi.as_view(),
        name="profile-outcome-rows",
    ),
]
