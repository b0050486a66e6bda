"""REST endpoints of the reference-label audit, under /api/audit/labels/ (namespace
"audit-api:labels-api", nested by heartbench_site.api_urls)."""

from django.urls import path

from audit.reference_labels import statistics
from audit.reference_labels.api import adjudications, audits, expert_items, outcomes

app_name = "labels-api"
urlpatterns = [
    path("", audits.LabelAuditListCreateApi.as_view(), name="audit-list"),
    path("<int:label_audit_id>/", audits.LabelAuditDetailApi.as_view(), name="audit"),
    path("<int:label_audit_id>/items/", audits.LabelAuditItemsApi.as_view(), name="audit-items"),
    path("<int:label_audit_id>/mine/", expert_items.ExpertQueueApi.as_view(), name="expert-queue"),
    path("<int:label_audit_id>/outcomes/", outcomes.LabelOutcomesApi.as_view(), name="outcomes"),
    path("items/<int:label_item_id>/", expert_items.ExpertItemApi.as_view(), name="expert-item"),
    path("items/<int:label_item_id>/draft/", expert_items.ExpertDraftApi.as_view(), name="draft"),
    path(
        "items/<int:label_item_id>/selection/",
        expert_items.ExpertSelectionApi.as_view(),
        name="selection",
    ),
    path(
        "items/<int:label_item_id>/adjudication/",
        adjudications.AdjudicationApi.as_view(),
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
