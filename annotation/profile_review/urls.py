"""Construction-stage expert reviews: character profiles and scenarios (issue 6)."""

from django.urls import path

from annotation.profile_review import views

app_name = "review"
urlpatterns = [
    # Profile review (seed 000 §2.2 Stage 1, App. B.3)
    path("profiles/", views.profile_list, name="profile-list"),
    path("profile-outcomes/", views.profile_outcomes, name="profile-outcomes"),
    path("profile-outcomes.csv", views.profile_outcomes_csv, name="profile-outcomes-csv"),
    path("profiles/<str:key>/", views.profile_review, name="profile-review"),
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
    # Scenario review (seed 000 §2.3, App. C.2)
    path("scenarios/", views.scenario_list, name="scenario-list"),
    path("scenarios/new/", views.scenario_new, name="scenario-new"),
    path("scenario-coverage/", views.scenario_coverage, name="scenario-coverage"),
    path(
        "scenario-coverage/diamonds.csv", views.coverage_diamonds_csv, name="coverage-diamonds-csv"
    ),
    path(
        "scenario-coverage/life-stages.csv",
        views.coverage_life_stages_csv,
        name="coverage-life-stages-csv",
    ),
    path(
        "scenario-coverage/agreement.csv",
        views.coverage_agreement_csv,
        name="coverage-agreement-csv",
    ),
    path("blueprints/", views.blueprint_list, name="blueprint-list"),
    path("blueprints/<int:id>/", views.blueprint_detail, name="blueprint-detail"),
    path("blueprints/<int:id>/queue/", views.blueprint_queue, name="blueprint-queue"),
    path("scenarios/<str:scenario_id>/", views.scenario_review, name="scenario-review"),
    path("scenarios/<str:scenario_id>/screen/", views.scenario_screen, name="scenario-screen"),
    path("scenarios/<str:scenario_id>/revise/", views.scenario_revise, name="scenario-revise"),
    path("scenarios/<str:scenario_id>/rate/", views.scenario_rate, name="scenario-rate"),
    path(
        "scenarios/<str:scenario_id>/reassess/", views.scenario_reassess, name="scenario-reassess"
    ),
]
