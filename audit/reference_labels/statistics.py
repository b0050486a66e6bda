"""The reference-label audit's outcomes (seed 000 Table 14, App. D.4) as tidy tables
(core.tidy_tables): the outcome counts with Fleiss' κ, and one row per audited
item. The outcome page's CSV and Parquet downloads, the API rows and the statistics export
read these builders. Admins and the audit's own adjudicator only: the rows name the key."""

from rest_framework.exceptions import NotFound

from audit.reference_labels import selectors, stored_reports
from audit.reference_labels.models import LabelAudit
from audit.reference_labels.outcomes import label_audit_outcomes
from core.roles import Role, user_roles
from core.tidy_tables import TidySpec, TidyTable, tidy_api

LABEL_AUDIT_OUTCOMES = TidySpec(
    "label_audit_outcomes",
    {
        "label_audit_id": int,
        "statistic": str,
        "outcome": str,
        "label": str,
        "value": float,
        "percent": float,
        "ci_low": float,
        "ci_high": float,
        "n": int,
    },
    "One row per outcome of Table 14 (items, and their percent of the sample) and one row "
    "for Fleiss' κ of the three experts over the four options (95% bootstrap interval over "
    "items, seeded with the audit's seed; n is the number of items all three selected).",
)
LABEL_AUDIT_ITEMS = TidySpec(
    "label_audit_items",
    {
        "label_audit_id": int,
        "position": int,
        "question_id": str,
        "character_key": str,
        "stage": str,
        "expert_1": str,
        "expert_2": str,
        "expert_3": str,
        "key_at_audit": str,
        "experts_on_key": int,
        "outcome": str,
    },
    "One row per sampled item: the three experts' submitted selections (by expert "
    "position), the key at the audit, how many experts selected it and the adjudication "
    "outcome.",
)


def label_audit_outcomes_table(audit: LabelAudit, result=None) -> TidyTable:
    result = result or label_audit_outcomes(audit=audit)
    rows = [
        {
            "label_audit_id": audit.pk,
            "statistic": "items",
            "outcome": r["key"],
            "label": r["label"],
            "value": r["n"],
            "percent": r["percent"],
            "n": result.counts["sampled"],
        }
        for r in result.rows
    ]
    ci = result.kappa_ci or (None, None)
    rows.append(
        {
            "label_audit_id": audit.pk,
            "statistic": "fleiss_kappa",
            "value": result.kappa,
            "ci_low": ci[0],
            "ci_high": ci[1],
            "n": result.kappa_items,
        }
    )
    return LABEL_AUDIT_OUTCOMES.table(rows)


def label_audit_items_table(audit: LabelAudit, result=None) -> TidyTable:
    result = result or label_audit_outcomes(audit=audit)
    return LABEL_AUDIT_ITEMS.table(
        {
            "label_audit_id": audit.pk,
            "position": it["position"],
            "question_id": it["item__question_id"],
            "character_key": it["character_key"],
            "stage": it["stage"],
            **{
                f"expert_{n}": choice
                for n, choice in enumerate((it["choices"] + ["", "", ""])[:3], start=1)
            },
            "key_at_audit": it["key_at_audit"],
            "experts_on_key": it["n_on_key"],
            "outcome": it["outcome"],
        }
        for it in result.per_item
    )


#: The outcome page's tables by URL slug, and their specs.
TABLES = {"outcomes": label_audit_outcomes_table, "items": label_audit_items_table}
SPECS = {"outcomes": LABEL_AUDIT_OUTCOMES, "items": LABEL_AUDIT_ITEMS}


def _overseen_audit(request, label_audit_id) -> LabelAudit:
    """The audit, for an admin or its own adjudicator; 404 for anyone else."""
    audit = selectors.label_audit_get(audit_id=label_audit_id)
    if audit is None or (
        Role.ADMIN not in user_roles(request.user) and audit.adjudicator_id != request.user.pk
    ):
        raise NotFound("No such reference-label audit among yours.")
    return audit


def _stored_table(build, audit: LabelAudit) -> TidyTable:
    """The API rows read the stored outcomes, as the page does (no rows before the first
    computation)."""
    return build(audit, stored_reports.stored_or_empty(audit))


OVERSEERS = [Role.AUDIT_ADJUDICATOR, Role.ADMIN]

LabelAuditOutcomeRowsApi = tidy_api(
    LABEL_AUDIT_OUTCOMES,
    lambda request, label_audit_id: _stored_table(
        label_audit_outcomes_table, _overseen_audit(request, label_audit_id)
    ),
    roles=OVERSEERS,
    summary="One audit's outcome table and Fleiss' κ as tidy rows",
    description=LABEL_AUDIT_OUTCOMES.description + " Another adjudicator's audit answers 404.",
    example={
        "label_audit_id": 1,
        "statistic": "items",
        "outcome": "agree_3",
        "label": "All three experts selected the key (3/3)",
        "value": 42,
        "percent": 70.0,
        "ci_low": None,
        "ci_high": None,
        "n": 60,
    },
    not_found=True,
)
LabelAuditItemRowsApi = tidy_api(
    LABEL_AUDIT_ITEMS,
    lambda request, label_audit_id: _stored_table(
        label_audit_items_table, _overseen_audit(request, label_audit_id)
    ),
    roles=OVERSEERS,
    summary="One audit's items, selections and outcomes as tidy rows",
    description=LABEL_AUDIT_ITEMS.description + " Another adjudicator's audit answers 404.",
    example={
        "label_audit_id": 1,
        "position": 1,
        "question_id": "Q0001",
        "character_key": "CHAR_01",
        "stage": "school_age",
        "expert_1": "B",
        "expert_2": "B",
        "expert_3": "C",
        "key_at_audit": "B",
        "experts_on_key": 2,
        "outcome": "usable_as_is",
    },
    not_found=True,
)
