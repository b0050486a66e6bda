"""What every step of the memory audit writes besides its own rows: the event log, the
role check before a person's step, memory versions (each change of a Memory row kept as
its next version) and the flags of a case."""

from django.db import transaction
from django.db.models import Max

from annotation.corpus.models import Memory
from audit.memory_quality.models import (
    VERSIONED_FIELDS,
    AuditCall,
    AuditError,
    AuditEvent,
    AuditUnit,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
)
from audit.memory_quality.services.prices import call_prices
from core.llm_runs.services import record_call
from core.roles import Role, has_any_role


def log_event(*, actor, action: str, run=None, case=None, **details) -> None:
    AuditEvent.objects.create(actor=actor, action=action, run=run, case=case, details=details)


def audit_call_record(
    *, run_id: int, character_id: int, kind: str, result, prices_of: str | None = None
) -> AuditCall:
    """Store one classifier or repair call (``core.llm_runs.services.record_call``) at the
    configured prices of its kind (or of the model ``prices_of`` names: a fact check
    asks the repair model); its tokens and cost count towards the unit of the
    memory's character in the run (what the run's budget reads)."""
    unit_id = (
        AuditUnit.objects.filter(run_id=run_id, character_id=character_id)
        .values_list("pk", flat=True)
        .first()
    )
    totals = (AuditUnit, unit_id) if unit_id is not None else None
    return record_call(
        AuditCall,
        result=result,
        totals=totals,
        prices=call_prices(prices_of or kind),
        run_id=run_id,
        kind=kind,
    )


def require_role(user, role: Role, doing: str) -> None:
    if not has_any_role(user, [role]):
        raise AuditError(f"Only a {role.label.lower()} can {doing}.")


def snapshot(memory: Memory) -> dict:
    return {name: getattr(memory, name) for name in VERSIONED_FIELDS}


def ensure_original_versions(memories) -> None:
    """Version 1 of each memory (its text as the audit found it), where missing."""
    have = set(
        MemoryVersion.objects.filter(memory__in=[m.pk for m in memories]).values_list(
            "memory_id", flat=True
        )
    )
    MemoryVersion.objects.bulk_create(
        MemoryVersion(memory=m, number=1, origin=MemoryVersion.Origin.ORIGINAL, fields=snapshot(m))
        for m in memories
        if m.pk not in have
    )


def memory_change(
    *,
    memory: Memory,
    changes: dict,
    origin: str,
    author=None,
    case=None,
    attempt=None,
    note="",
    reaudit=None,
) -> MemoryVersion:
    """Write ``changes`` to the Memory row and keep the result as its next version.
    Caller holds the memory's row lock."""
    ensure_original_versions([memory])
    for name, value in changes.items():
        if name not in VERSIONED_FIELDS:
            raise AuditError(f"{name} is not a field the audit may change.")
        setattr(memory, name, value)
    memory.save(update_fields=list(changes))
    number = (MemoryVersion.objects.filter(memory=memory).aggregate(n=Max("number"))["n"] or 0) + 1
    return MemoryVersion.objects.create(
        memory=memory,
        number=number,
        origin=origin,
        fields=snapshot(memory),
        author=author,
        case=case,
        repair_attempt=attempt,
        note=note,
        reaudit=reaudit or {},
    )


@transaction.atomic
def demo_defect_plant(*, memory_id: str, field: str, text: str, note: str) -> MemoryVersion:
    """Demo only: append a labelled defect to a stand-in memory, kept as a version."""
    memory = Memory.objects.select_for_update().get(memory_id=memory_id)
    if not memory.is_demo_standin:
        raise AuditError("Demo defects go into demo stand-in memories only.")
    current = getattr(memory, field)
    if text in current:
        return memory.audit_versions.order_by("-number").first()
    return memory_change(
        memory=memory,
        changes={field: f"{current} {text}"},
        origin=MemoryVersion.Origin.DEMO_DEFECT,
        note=note,
    )


def case_flags(case: MemoryCase, findings, audit_pass: str) -> list[MemoryFlag]:
    return [
        MemoryFlag(
            case=case,
            criterion=f.criterion,
            field=f.field,
            detail=f.detail[:500],
            spans=[
                {"field": s.field, "start": s.start, "end": s.end, "text": s.text} for s in f.spans
            ],
            related_memory_id=f.related,
            score=f.score,
            audit_pass=audit_pass,
            source=f.source,
        )
        for f in findings
    ]
