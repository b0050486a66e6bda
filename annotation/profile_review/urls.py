"""Profile review's pages, under /review/ in the ``review`` namespace, which it shares
with scenario review: ``heartbench_site.urls`` composes both packages' patterns."""

from django.urls import path

from annotation.profile_review import views

urlpatterns = [
    path("profiles/", views.profile_list, name="profile-list"),
    path("profile-outcomes/", views.profile_outcomes, name="profile-outcomes"),
    path("profile-outcomes.csv", views.profile_outcomes_csv, name="profile-outcomes-csv"),
    path("profile-outcomes/table/", views.profile_outcomes_table, name="profile-outcomes-table"),
    path("profiles/<str:key>/", views.profile_review, name="profile-review"),
    path("profiles/<str:key>/draft/", views.profile_review_draft, name="profile-review-draft"),
    path("profiles/<str:key>/requests/", views.change_request_add, name="change-request-add"),
    path(
        "profiles/<str:key>/requests/<int:id>/withdraw/",
        views.change_request_withdraw,
        name="change-request-withdraw",
    ),
    path(
        "profiles/<str:key>/requests/<int:id>/resolve/",
        views.change_request_resolve,
        name="change-request-resolve",
    ),
    path("profiles/<str:key>/adjudicate/", views.profile_adjudicate, name="profile-adjudicate"),
    path("profiles/<str:key>/edit/", views.profile_edit, name="profile-edit"),
    path(
        "profiles/<str:key>/edits/<int:id>/", views.profile_edit_detail, name="profile-edit-detail"
    ),
    path("profiles/<str:key>/freeze/", views.profile_freeze, name="profile-freeze"),
]
