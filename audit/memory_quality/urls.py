"""The memory quality audit (seed 000 §2.2 Stage 3, App. B.6), under /audit/ (namespace
"audit", given by heartbench_site.urls, which also puts the reference-label audit's
"labels" under /audit/labels/)."""

from django.urls import path

from audit.memory_quality import classifier_agreement_views, views

urlpatterns = [
    path("", views.queue, name="queue"),
    path("cases/<int:case_id>/", views.case_detail, name="case-detail"),
    path("cases/<int:case_id>/decide/", views.case_decide, name="case-decide"),
    path("cases/<int:case_id>/edit/", views.case_edit, name="case-edit"),
    path("cases/<int:case_id>/edit/draft/", views.case_edit_draft, name="case-edit-draft"),
    path("cases/<int:case_id>/reaudit/", views.case_reaudit, name="case-reaudit"),
    path("cases/<int:case_id>/ask-team/", views.case_ask_team, name="case-ask-team"),
    path("runs/", views.run_list, name="run-list"),
    path("runs/<int:run_id>/", views.run_detail, name="run-detail"),
    path("runs/<int:run_id>/cancel/", views.run_cancel, name="run-cancel"),
    path("runs/<int:run_id>/resume/", views.run_resume, name="run-resume"),
    path("runs/<int:run_id>/retry/", views.run_retry, name="run-retry"),
    path("runs/<int:run_id>/finalize/", views.run_finalize, name="run-finalize"),
    path("runs/<int:run_id>/classify/", views.run_classify, name="run-classify"),
    path("runs/<int:run_id>/outcomes/", views.outcomes, name="outcomes"),
    path("runs/<int:run_id>/outcomes.csv", views.outcomes_csv, name="outcomes-csv"),
    path("settings/", views.settings_page, name="settings"),
    path(
        "classifier/agreement/",
        classifier_agreement_views.classifier_agreement_report,
        name="classifier-agreement",
    ),
]

# The outcome page's tables, tidy (issue #23): ?format=csv or ?format=parquet.
urlpatterns += [
    path(
        f"runs/<int:run_id>/outcomes/{slug}/table/",
        views.outcomes_table,
        {"table": slug},
        name=f"{slug}-table",
    )
    for slug in ("outcomes", "criteria")
]
