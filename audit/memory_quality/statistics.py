"""The memory quality audit's outcomes (seed 000 §2.2 Stage 3) as tidy tables
(core.tidy_tables): one row per character, and one row per criterion of the
initial audit, for the outcome page's CSV and Parquet downloads, the API rows and the
statistics export."""

from django.http import Http404

from audit.memory_quality import selectors
from audit.memory_quality.models import AuditRun
from core.roles import Role
from core.tidy_tables import TidySpec, TidyTable, tidy_api

MEMORY_AUDIT_OUTCOMES = TidySpec(
    "memory_audit_outcomes",
    {"audit_run_id": int, "character": str, **{n: int for n, _ in selectors.OUTCOME_COLUMNS}},
    "One row per character of the audit run: memories audited, passed the initial audit, "
    "passed after automated rewriting, escalated, revised by the senior expert, accepted "
    "as false positives, still open (the overall row of the page is their sum).",
)
MEMORY_AUDIT_CRITERIA = TidySpec(
    "memory_audit_criteria",
    {"audit_run_id": int, "criterion": int, "label": str, "flags": int, "memories_flagged": int},
    "One row per criterion of the initial audit: its flags and the memories it flagged.",
)


def memory_audit_outcomes_table(run: AuditRun, result=None) -> TidyTable:
    result = result or selectors.audit_outcomes(run=run)
    names = [n for n, _ in selectors.OUTCOME_COLUMNS]
    return MEMORY_AUDIT_OUTCOMES.table(
        {"audit_run_id": run.pk, "character": row["character"], **{n: row[n] for n in names}}
        for row in result.rows
    )


def memory_audit_criteria_table(run: AuditRun, result=None) -> TidyTable:
    result = result or selectors.audit_outcomes(run=run)
    return MEMORY_AUDIT_CRITERIA.table(
        {
            "audit_run_id": run.pk,
            "criterion": row["criterion"],
            "label": row["label"],
            "flags": row["flags"],
            "memories_flagged": row["memories"],
        }
        for row in result.criteria_rows
    )


#: The outcome page's tables by URL slug.
TABLES = {"outcomes": memory_audit_outcomes_table, "criteria": memory_audit_criteria_table}
READERS = [Role.ARBITRATOR, Role.ADMIN, Role.MEMORY_REVIEWER]


def audit_run_or_404(run_id) -> AuditRun:
    run = selectors.audit_run_get(run_id=run_id)
    if run is None:
        raise Http404("No such audit run.")
    return run


MemoryAuditOutcomeRowsApi = tidy_api(
    MEMORY_AUDIT_OUTCOMES,
    lambda request, run_id: memory_audit_outcomes_table(audit_run_or_404(run_id)),
    roles=READERS,
    summary="A memory audit run's outcomes per character as tidy rows",
    description=MEMORY_AUDIT_OUTCOMES.description,
    example={
        "audit_run_id": 1,
        "character": "CHAR_01",
        "memories": 140,
        "passed_initial": 120,
        "passed_after_rewriting": 12,
        "escalated": 8,
        "revised_by_senior": 5,
        "false_positive": 3,
        "open": 0,
    },
    not_found=True,
)
MemoryAuditCriteriaRowsApi = tidy_api(
    MEMORY_AUDIT_CRITERIA,
    lambda request, run_id: memory_audit_criteria_table(audit_run_or_404(run_id)),
    roles=READERS,
    summary="A memory audit run's flags per criterion as tidy rows",
    description=MEMORY_AUDIT_CRITERIA.description,
    example={
        "audit_run_id": 1,
        "criterion": 2,
        "label": "Temporal consistency",
        "flags": 14,
        "memories_flagged": 11,
    },
    not_found=True,
)
