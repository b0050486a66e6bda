"""Scenario review's and the blueprints' pages, under /review/ in the ``review``
namespace, which they share with profile review: ``heartbench_site.urls`` composes both
packages' patterns."""

from django.urls import path

from annotation.scenario_review import views

urlpatterns = [
    path("scenarios/", views.scenario_list, name="scenario-list"),
    path("scenarios/new/", views.scenario_new, name="scenario-new"),
    path("scenario-coverage/", views.scenario_coverage, name="scenario-coverage"),
    path(
        "scenario-coverage/plots/<slug:plot>.<slug:fmt>",
        views.coverage_plot,
        name="coverage-plot",
    ),
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
        "scenarios/<str:scenario_id>/rate/draft/",
        views.scenario_rating_draft,
        name="scenario-rating-draft",
    ),
    path(
        "scenarios/<str:scenario_id>/reassess/", views.scenario_reassess, name="scenario-reassess"
    ),
    path(
        "scenarios/<str:scenario_id>/reassess/confirm/",
        views.scenario_reassess_confirm,
        name="scenario-reassess-confirm",
    ),
]

# The coverage tables, tidy (issue #23): ?format=csv or ?format=parquet.
urlpatterns += [
    path(
        f"scenario-coverage/{slug}/table/",
        views.coverage_table,
        {"table": slug},
        name=f"coverage-{slug}-table",
    )
    for slug in ("ratings", "life-stages", "agreement")
]
