"""Profile review's REST endpoints, under /api/review/ in the ``review-api`` namespace,
which it shares with scenario review: ``heartbench_site.api_urls`` composes both."""

from django.urls import path

from annotation.profile_review import api, api_senior, statistics

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
    # The key comes last in every URL below too, and no shorter URL that holds it
    # resolves: the browsable API's breadcrumb never repeats it.
    path(
        "change-requests/<int:id>/withdraw/<str:key>/",
        api.ChangeRequestWithdrawApi.as_view(),
        name="change-request-withdraw",
    ),
    path(
        "change-requests/<int:id>/resolve/<str:key>/",
        api_senior.ChangeRequestResolveApi.as_view(),
        name="change-request-resolve",
    ),
    path(
        "profile-adjudication/<str:key>/",
        api_senior.AdjudicationApi.as_view(),
        name="profile-adjudicate",
    ),
    path("profile-edits/<str:key>/", api_senior.ProfileEditApi.as_view(), name="profile-edit"),
    path(
        "profile-edit-details/<int:id>/",
        api_senior.ProfileEditDetailApi.as_view(),
        name="profile-edit-detail",
    ),
    path("profile-freeze/<str:key>/", api_senior.ProfileFreezeApi.as_view(), name="profile-freeze"),
]

# Tidy statistics rows (issue #23), the JSON twin of the page's CSV and Parquet downloads.
urlpatterns += [
    path(
        "profile-outcomes/rows/",
        statistics.ProfileReviewOutcomeRowsApi.as_view(),
        name="profile-outcome-rows",
    ),
]
