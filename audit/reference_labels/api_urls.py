"""REST endpoints of the reference-label audit, under /api/audit/labels/ (namespace
"audit-api:labels-api", nested by heartbench_site.api_urls)."""

from django.urls import path

from audit.reference_labels import api, api_writes, statistics

app_name = "labels-api"
urlpatterns = [
    path("", api_writes.LabelAuditListCreateApi.as_view(), name="audit-list"),
    path("<int:label_audit_id>/", api.LabelAuditDetailApi.as_view(), name="audit"),
    path("<int:label_audit_id>/items/", api.LabelAuditItemsApi.as_view(), name="audit-items"),
    path("<int:label_audit_id>/mine/", api.ExpertQueueApi.as_view(), name="expert-queue"),
    path("<int:label_audit_id>/outcomes/", api.LabelOutcomesApi.as_view(), name="outcomes"),
    path("items/<int:label_item_id>/", api.ExpertItemApi.as_view(), name="expert-item"),
    path("items/<int:label_item_id>/draft/", api_writes.ExpertDraftApi.as_view(), name="draft"),
    path(
        "items/<int:label_item_id>/selection/",
        api_writes.ExpertSelectionApi.as_view(),
        name="selection",
    ),
    path(
        "items/<int:label_item_id>/adjudication/",
        api_writes.AdjudicationApi.as_view(),
        name="adjudication",
    ),
]

# Tidy statistics rows (issue #23), the JSON twin of the outcome page's downloads.
urlpatterns += [
    path(
        "<int:label_audit_id>/outcomes/rows/",
        statistics.LabelAuditOutcomeRowsApi.as_view(),
        name="outcomes-rows",
    ),
    path(
        "<int:label_audit_id>/items/rows/",
        statistics.LabelAuditItemRowsApi.as_view(),
        name="items-rows",
    ),
]
