"""An audit expert's reads of the reference-label audit (App. D.4), BLIND.

They build plain dataclasses that hold the option labels and texts of the audited version
and the expert's *own* selection, nothing else: no key, no option provenance, no item
status, no other expert's selection. Expert pages and API responses render only these.
"""

from dataclasses import dataclass
from datetime import datetime

from annotation.corpus.models import ProfileVersion, Scenario
from audit.reference_labels.models import LabelAudit, LabelAuditItem, LabelSelection
from audit.reference_labels.selectors import profile_for
from core.life_stages import BY_KEY as LIFE_STAGES


@dataclass(frozen=True)
class BlindOption:
    label: str
    content: str


@dataclass
class ExpertQueueRow:
    audit_item_id: int
    position: int
    question_id: str
    character_key: str
    stage_label: str
    state: str  # "submitted", "draft", "todo": the expert's own progress only
    scenario_title: str = ""


def expert_queue(*, audit: LabelAudit, expert) -> list[ExpertQueueRow]:
    """The expert's items in sample order with *their own* progress. Two queries."""
    own = {
        s.audit_item_id: s
        for s in LabelSelection.objects.filter(audit_item__audit=audit, expert=expert).only(
            "audit_item_id", "submitted_at", "choice", "note"
        )
    }
    rows = []
    for audit_item_id, position, question_id, character_key, stage, title in (
        LabelAuditItem.objects.filter(audit=audit)
        .order_by("position")
        .values_list(
            "pk", "position", "item__question_id", "character_key", "stage", "item__scenario__name"
        )
    ):
        mine = own.get(audit_item_id)
        if mine is None:
            state = "todo"
        elif mine.submitted_at is not None:
            state = "submitted"
        else:
            state = "draft"
        stage_label = LIFE_STAGES[stage].label if stage in LIFE_STAGES else stage
        rows.append(
            ExpertQueueRow(
                audit_item_id, position, question_id, character_key, stage_label, state, title
            )
        )
    return rows


@dataclass
class ExpertItemPage:
    audit: LabelAudit
    audit_item_id: int
    position: int
    total: int
    question_id: str
    character_key: str
    stage_label: str
    profile: ProfileVersion | None
    scenario: Scenario
    options: list[BlindOption]
    choice: str
    note: str
    submitted: bool
    next_item_id: int | None
    done: int
    draft_saved_at: datetime | None = None  # the autosaved draft's last save, if any


def expert_item_page(*, audit_item_id: int, expert) -> ExpertItemPage | None:
    """The item as a model sees it plus the construction context (App. D.4): the target
    character's profile, the scenario and the options in the item's fixed order. Only
    labels and texts of the options are copied out; ``None`` unless ``expert`` is one of
    the audit's experts."""
    row = (
        LabelAuditItem.objects.select_related("audit", "item_version", "item__scenario")
        .filter(pk=audit_item_id, audit__experts__expert=expert)
        .first()
    )
    if row is None:
        return None
    options = [
        BlindOption(o["label"], o["content"])
        for o in sorted(row.item_version.options, key=lambda o: o["label"])
    ]
    mine = LabelSelection.objects.filter(audit_item=row, expert=expert).first()
    queue = expert_queue(audit=row.audit, expert=expert)
    pending = [r for r in queue if r.state != "submitted" and r.audit_item_id != row.pk]
    later = [r for r in pending if r.position > row.position]
    next_row = (later or pending or [None])[0]
    return ExpertItemPage(
        audit=row.audit,
        audit_item_id=row.pk,
        position=row.position,
        total=len(queue),
        question_id=row.item.question_id,
        character_key=row.character_key,
        stage_label=LIFE_STAGES[row.stage].label if row.stage in LIFE_STAGES else row.stage,
        profile=profile_for(row.item.character_id),
        scenario=row.item.scenario,
        options=options,
        choice=mine.choice if mine else "",
        note=mine.note if mine else "",
        submitted=bool(mine and mine.submitted_at),
        next_item_id=next_row.audit_item_id if next_row else None,
        done=sum(1 for r in queue if r.state == "submitted"),
        draft_saved_at=mine.updated_at if mine and not mine.submitted_at else None,
    )


def expert_next_item(*, audit: LabelAudit, expert) -> int | None:
    """Where the expert resumes: their first item not yet submitted."""
    for row in expert_queue(audit=audit, expert=expert):
        if row.state != "submitted":
            return row.audit_item_id
    return None
