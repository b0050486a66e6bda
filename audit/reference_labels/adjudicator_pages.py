"""The audit adjudicator's reads of the reference-label audit (App. D.4): an item without
complete agreement with the key, every expert's selection and note, and the queue of such
items. They see everything; never render them to an audit expert."""

from dataclasses import dataclass

from django.db.models import Prefetch

from annotation.corpus.models import ProfileVersion
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from audit.reference_labels.selectors import profile_for


@dataclass
class AdjudicationPage:
    audit_item: LabelAuditItem
    profile: ProfileVersion | None
    options: list[dict]  # label, content, is_key, chosen_by (expert positions)
    selections: list[dict]  # position, username, choice, note, on_key
    current_version: int
    adjudication: object | None


def adjudication_page(*, audit_item_id: int) -> AdjudicationPage | None:
    row = (
        LabelAuditItem.objects.select_related(
            "audit", "item_version", "item__scenario", "item", "adjudication__adjudicator"
        )
        .filter(pk=audit_item_id)
        .first()
    )
    if row is None:
        return None
    positions = dict(
        LabelAuditExpert.objects.filter(audit=row.audit_id).values_list("expert_id", "position")
    )
    submitted = sorted(
        LabelSelection.objects.filter(audit_item=row, submitted_at__isnull=False).select_related(
            "expert"
        ),
        key=lambda s: positions.get(s.expert_id, 99),
    )
    key = row.item_version.correct_answer
    selections = [
        {
            "position": positions.get(s.expert_id),
            "username": s.expert.get_username(),
            "choice": s.choice,
            "note": s.note,
            "on_key": s.choice == key,
        }
        for s in submitted
    ]
    options = [
        {
            "label": o["label"],
            "content": o["content"],
            "is_key": o["label"] == key,
            "chosen_by": [s["position"] for s in selections if s["choice"] == o["label"]],
        }
        for o in sorted(row.item_version.options, key=lambda o: o["label"])
    ]
    adjudication = getattr(row, "adjudication", None)
    return AdjudicationPage(
        audit_item=row,
        profile=profile_for(row.item.character_id),
        options=options,
        selections=selections,
        current_version=row.item.version,
        adjudication=adjudication,
    )


def adjudication_queue(*, audit: LabelAudit):
    """Items without complete agreement, awaiting or past adjudication. Two queries."""
    return (
        LabelAuditItem.objects.filter(
            audit=audit,
            status__in=[LabelAuditItem.Status.ADJUDICATING, LabelAuditItem.Status.RESOLVED],
        )
        .select_related("item__scenario")
        .prefetch_related(
            Prefetch(
                "selections",
                queryset=LabelSelection.objects.filter(submitted_at__isnull=False).order_by(
                    "expert_id"
                ),
            )
        )
        .order_by("status", "position")
    )
