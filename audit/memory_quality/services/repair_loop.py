"""The automated repair loop (App. B.6): up to three attempts per flagged memory, each an
LLM rewrite of the flagged fields re-audited at once; a memory still flagged after the
last attempt goes to manual review.

The LLM call of an attempt happens outside any transaction (no row lock is held over the
network); the attempt is recorded afterwards under the case's row lock, once."""

from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality import criteria, repair, selectors
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    AuditError,
    MemoryCase,
    MemoryVersion,
    RepairAttempt,
)
from audit.memory_quality.services.configuration import REPAIR_ROUNDS, repair_provider
from audit.memory_quality.services.records import log_event, memory_change
from llm import ProviderConfig, make_client


def _findings_dicts(flags) -> list[dict]:
    return [
        {"criterion": f.criterion, "field": f.field, "detail": f.detail, "spans": f.spans}
        for f in flags
    ]


def memory_dict(memory: Memory) -> dict:
    return {
        name: getattr(memory, name)
        for name in (
            "memory_id",
            "timeline",
            "event_age",
            *MEMORY_TEXT_FIELDS,
            "emotion_primary",
            "emotion_secondary",
            "emotion_intensity",
        )
    }


def reaudit_memory(*, memory: Memory, config: criteria.AuditConfig, changes: dict) -> list:
    """Criteria 1-6 on the memory with ``changes`` applied, against the other memories of
    its character's age window (criterion 4)."""
    texts = selectors.window_texts(memory=memory, config=config)
    texts = [
        criteria.MemoryText(
            t.key,
            t.character,
            t.event_age,
            changes.get("context", t.context),
            changes.get("content_summary", t.content_summary),
            changes.get("content_full", t.content_full),
            t.emotion_intensity,
        )
        if t.key == memory.memory_id
        else t
        for t in texts
    ]
    result = criteria.audit_memories(texts, config, only={memory.memory_id})
    return result.findings.get(memory.memory_id, [])


def repair_attempt_run(*, case_id: int, provider: ProviderConfig | None = None, dispatch=True):
    """One automated repair attempt of a flagged memory. Returns the attempt, or None
    when the case needs none (resolved already, or a redelivered task). Three failures
    (the settings version's ``max_repair_attempts``) send the case to manual review."""
    with transaction.atomic():
        case = (
            MemoryCase.objects.select_for_update()
            .select_related("memory", "run__settings_version")
            .get(pk=case_id)
        )
        if case.status != MemoryCase.Status.REPAIRING:
            return None
        limit = case.run.settings_version.max_repair_attempts
        number = case.attempts.count() + 1
        if number > limit:
            _escalate(case, note=f"Still flagged after {limit} automated repair attempt(s).")
            return None
        flags = list(case.flags.filter(current=True))
        findings = _findings_dicts(flags)
        previous = case.attempts.order_by("-number").first()
        fields = repair.fields_to_regenerate(findings)
        memory_data = memory_dict(case.memory)
    system, user = repair.repair_prompt(
        memory=memory_data,
        findings=findings,
        fields=fields,
        previous_findings=previous.audit_findings if previous else (),
    )
    schema = repair.repair_schema(fields)
    provider = provider or repair_provider()
    if provider is None:
        raise AuditError("No repair model is configured (HEARTBENCH_AUDIT_REPAIR_*).")
    client = make_client(provider)
    try:
        result = client.complete_json(
            system=system, user=user, schema=schema, max_attempts=REPAIR_ROUNDS
        )
    finally:
        client.close()
    return _repair_attempt_record(
        case_id=case_id,
        number=number,
        criteria_list=sorted({f["criterion"] for f in findings}),
        fields=fields,
        system=system,
        user=user,
        result=result,
        dispatch=dispatch,
    )


@transaction.atomic
def _repair_attempt_record(
    *, case_id, number, criteria_list, fields, system, user, result, dispatch
):
    case = (
        MemoryCase.objects.select_for_update()
        .select_related("run__settings_version")
        .get(pk=case_id)
    )
    if case.status != MemoryCase.Status.REPAIRING or case.attempts.filter(number=number).exists():
        return None  # a redelivered task: this attempt is recorded already
    memory = Memory.objects.select_for_update().get(pk=case.memory_id)
    config = case.run.settings_version.as_config()
    findings, passed, error = [], False, ""
    changes = {}
    if result.ok:
        changes = {f: result.parsed[f] for f in fields}
        findings = reaudit_memory(memory=memory, config=config, changes=changes)
        passed = not findings
    else:
        error = f"{result.error_kind}: {result.error_message}"
    attempt = RepairAttempt.objects.create(
        case=case,
        number=number,
        criteria=criteria_list,
        fields=fields,
        system_prompt=system,
        user_prompt=user,
        output=result.parsed if result.ok else None,
        call=result.as_dict(),
        error=error[:2000],
        audit_findings=[f.as_dict() for f in findings],
        passed=passed,
    )
    log_event(actor=None, action="repair_attempt", case=case, number=number, passed=passed)
    if passed:
        memory_change(
            memory=memory,
            changes=changes,
            origin=MemoryVersion.Origin.REPAIR,
            case=case,
            attempt=attempt,
            note=f"Repair attempt {number} passed the re-audit.",
        )
        case.flags.filter(current=True).update(current=False)
        case.status = MemoryCase.Status.REPAIRED
        case.save(update_fields=["status", "updated_at"])
        return attempt
    limit = case.run.settings_version.max_repair_attempts
    if number >= limit:
        _escalate(case, note=f"Still flagged after {limit} automated repair attempt(s).")
    elif dispatch:
        # The tasks module imports this one: the dispatcher is looked up at call time.
        from audit.memory_quality.celery_tasks import dispatch_repair_attempts

        dispatch_repair_attempts([case.pk])
    return attempt


def _escalate(case: MemoryCase, *, note: str) -> None:
    case.status = MemoryCase.Status.REVIEW
    case.escalated = True
    case.repair_note = note
    case.save(update_fields=["status", "escalated", "repair_note", "updated_at"])
    log_event(actor=None, action="escalated", case=case, note=note)
