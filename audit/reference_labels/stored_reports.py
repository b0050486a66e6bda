"""A reference-label audit's outcomes (Table 14 and the experts' Fleiss' κ with its
bootstrap) as a stored report (issue #34): computed once, on a worker; the outcomes page,
its CSV, its tidy tables, its plot and the API read the stored figures.

The kind ``audit.reference_labels.outcomes`` is keyed by the audit's id. Its inputs are
the audit's items (how many in each status, agreement and outcome, and when the last was
compared), the submitted selections (count, last id, last change), the adjudications
(count, last id), the experts and the audit's seed: a new or revised selection or a new
adjudication changes the fingerprint.
"""

from dataclasses import asdict

from django.db.models import Count, Max

from agreement import constants
from audit.reference_labels.models import (
    LabelAdjudication,
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from audit.reference_labels.outcomes import OUTCOME_ROWS, LabelOutcomes, label_audit_outcomes
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "audit.reference_labels.outcomes"


def _audit(key: str) -> LabelAudit:
    return LabelAudit.objects.get(pk=int(key))


def inputs(key: str) -> Inputs:
    audit_id = int(key)
    items = [
        list(row)
        for row in LabelAuditItem.objects.filter(audit_id=audit_id)
        .values("status", "n_on_key", "outcome")
        .annotate(n=Count("pk"), compared=Max("compared_at"))
        .order_by("status", "n_on_key", "outcome")
        .values_list("status", "n_on_key", "outcome", "n", "compared")
    ]
    selections = LabelSelection.objects.filter(
        audit_item__audit_id=audit_id, submitted_at__isnull=False
    ).aggregate(n=Count("pk"), last=Max("pk"), changed=Max("updated_at"))
    adjudications = LabelAdjudication.objects.filter(audit_item__audit_id=audit_id).aggregate(
        n=Count("pk"), last=Max("pk")
    )
    experts = sorted(
        LabelAuditExpert.objects.filter(audit_id=audit_id).values_list("expert_id", "position")
    )
    seed = LabelAudit.objects.filter(pk=audit_id).values_list("seed", flat=True).first()
    identity = {
        "items": items,
        "selections": selections,
        "adjudications": adjudications,
        "experts": experts,
        "seed": seed,
        "n_boot": constants.N_BOOTSTRAP,
    }
    n_items = sum(row[3] for row in items)
    described = (
        f"{n_items} sampled item{'s' if n_items != 1 else ''}, {selections['n']} submitted "
        f"selections, {adjudications['n']} adjudications; seed {seed}"
    )
    return Inputs(identity=identity, described=described)


def compute(key: str) -> dict:
    result = asdict(label_audit_outcomes(audit=_audit(key)))
    result.pop("audit")
    return result


def from_stored(audit: LabelAudit, data: dict) -> LabelOutcomes:
    """The stored figures as the object the page, downloads, plot and API read."""
    data = dict(data)
    if data["kappa_ci"] is not None:
        data["kappa_ci"] = tuple(data["kappa_ci"])
    return LabelOutcomes(audit=audit, **data)


def not_computed(audit: LabelAudit) -> LabelOutcomes:
    """What the downloads serve before the first computation: no rows."""
    return LabelOutcomes(
        audit=audit,
        counts=dict.fromkeys((k for k, _ in OUTCOME_ROWS), 0),
        rows=[],
        kappa_note="These figures have not been computed yet.",
    )


def stored_outcomes(audit: LabelAudit) -> tuple[ReportView, LabelOutcomes | None]:
    """The stored report (queued when stale) and its figures (None before the first
    computation). Never computes the statistics."""
    report = report_for(KIND, str(audit.pk))
    return report, from_stored(audit, report.result) if report.ready else None


def stored_or_empty(audit: LabelAudit) -> LabelOutcomes:
    """The stored figures for a download or the API; no rows before the first one."""
    return stored_outcomes(audit)[1] or not_computed(audit)


register(KIND, inputs=inputs, compute=compute)
