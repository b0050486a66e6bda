"""The reference-label audit (seed 000 App. D.4), under /audit/labels/ (namespace
"audit:labels", nested by heartbench_site.urls)."""

from django.urls import path

from audit.reference_labels import views

app_name = "labels"
urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.create, name="create"),
    path("<int:label_audit_id>/", views.audit_detail, name="audit"),
    path("<int:label_audit_id>/mine/", views.expert_queue, name="expert-queue"),
    path("<int:label_audit_id>/outcomes/", views.outcomes, name="outcomes"),
    path("<int:label_audit_id>/outcomes.csv", views.outcomes_csv, name="outcomes-csv"),
    path(
        "<int:label_audit_id>/outcomes/plots/<slug:plot>.<slug:fmt>",
        views.outcomes_plot,
        name="outcomes-plot",
    ),
    path("items/<int:label_item_id>/", views.select, name="select"),
    path("items/<int:label_item_id>/draft/", views.draft, name="draft"),
    path("items/<int:label_item_id>/adjudicate/", views.adjudicate, name="adjudicate"),
]

# The outcome page's tables, tidy (issue #23): ?format=csv or ?format=parquet.
urlpatterns += [
    path(
        f"<int:label_audit_id>/{slug}/table/",
        views.outcomes_table,
        {"table": slug},
        name=f"{slug}-table",
    )
    for slug in ("outcomes", "items")
]
