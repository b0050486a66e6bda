"""REST endpoints of the memory quality audit, under /api/audit/ (namespace "audit-api",
given by heartbench_site.api_urls, which also puts the reference-label audit's
"labels-api" under /api/audit/labels/)."""

from django.urls import path

from audit.memory_quality import api

urlpatterns = [
    path("runs/", api.AuditRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", api.AuditRunDetailApi.as_view(), name="run-detail"),
    path("cases/", api.CaseQueueApi.as_view(), name="case-list"),
]
