"""REST endpoints of the reference-label audit, under /api/audit/labels/ (namespace
"audit-api:labels-api", nested by heartbench_site.api_urls)."""

from django.urls import path

from audit.reference_labels import api

app_name = "labels-api"
urlpatterns = [
    path("", api.LabelAuditListApi.as_view(), name="audit-list"),
    path("<int:label_audit_id>/mine/", api.ExpertQueueApi.as_view(), name="expert-queue"),
    path("<int:label_audit_id>/outcomes/", api.LabelOutcomesApi.as_view(), name="outcomes"),
    path("items/<int:label_item_id>/", api.ExpertItemApi.as_view(), name="expert-item"),
]
