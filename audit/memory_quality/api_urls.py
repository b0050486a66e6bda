"""REST endpoints of the memory quality audit, under /api/audit/ (namespace "audit-api",
given by heartbench_site.api_urls, which also puts the reference-label audit's
"labels-api" under /api/audit/labels/)."""

from django.urls import path

from audit.memory_quality import statistics
from audit.memory_quality.api import cases, runs, settings

urlpatterns = [
    path("runs/", runs.AuditRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", runs.AuditRunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel/", runs.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/resume/", runs.RunResumeApi.as_view(), name="run-resume"),
    path("runs/<int:run_id>/retry/", runs.RunRetryApi.as_view(), name="run-retry"),
    path("runs/<int:run_id>/finalize/", runs.RunFinalizeApi.as_view(), name="run-finalize"),
    path("runs/<int:run_id>/classify/", runs.RunClassifyApi.as_view(), name="run-classify"),
    path("cases/", cases.CaseQueueApi.as_view(), name="case-list"),
    path("cases/<int:case_id>/", cases.CaseDetailApi.as_view(), name="case-detail"),
    path("cases/<int:case_id>/decision/", cases.CaseDecideApi.as_view(), name="case-decide"),
    path("cases/<int:case_id>/edit/", cases.CaseEditApi.as_view(), name="case-edit"),
    path("settings/", settings.SettingsApi.as_view(), name="settings"),
]

# Tidy statistics rows (issue #23), the JSON twin of the outcome page's downloads.
urlpatterns += [
    path(
        "runs/<int:run_id>/outcomes/rows/",
        statistics.MemoryAuditOutcomeRowsApi.as_view(),
        name="outcomes-rows",
    ),
    path(
        "runs/<int:run_id>/criteria/rows/",
        statistics.MemoryAuditCriteriaRowsApi.as_view(),
        name="criteria-rows",
    ),
]
