"""REST endpoints of the memory quality audit, under /api/audit/."""

from django.urls import include, path

from audit.memory_quality import api

app_name = "audit-api"
urlpatterns = [
    path("runs/", api.AuditRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.AuditRunDetailApi.as_view(), name="run-detail"),
    path("cases/", api.CaseQueueApi.as_view(), name="case-list"),
    path("labels/", include("audit.reference_labels.api")),
]
