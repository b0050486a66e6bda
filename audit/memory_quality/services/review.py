"""Manual review of the memories the repair loop could not fix (App. B.6): the memory
reviewer confirms a defect or marks a false positive; the senior expert edits a confirmed
defect, re-audited at once."""

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Memory
from audit.memory_quality.models import AuditError, MemoryCase, MemoryFlag, MemoryVersion
from audit.memory_quality.services.records import (
    case_flags,
    log_event,
    memory_change,
    require_role,
)
from audit.memory_quality.services.repair_loop import reaudit_memory
from heartbench_site.base.roles import Role


@transaction.atomic
def case_review_decide(*, case_id: int, reviewer, decision: str, reason: str) -> MemoryCase:
    require_role(reviewer, Role.MEMORY_REVIEWER, "confirm or override audit flags")
    case = MemoryCase.objects.select_for_update().filter(pk=case_id).first()
    if case is None:
        raise AuditError(f"There is no audit case {case_id}.")
    if case.status != MemoryCase.Status.REVIEW:
        raise AuditError(f"This memory is at “{case.get_status_display()}”, not awaiting review.")
    reason = (reason or "").strip()
    if decision not in MemoryCase.Decision.values:
        raise AuditError("Choose: confirm the defect, or mark the flag a false positive.")
    if decision == MemoryCase.Decision.FALSE_POSITIVE and not reason:
        raise AuditError("Say why the flag is a false positive: a reason is required.")
    case.decision = decision
    case.decision_reason = reason
    case.reviewer = reviewer
    case.decided_at = timezone.now()
    case.status = (
        MemoryCase.Status.SENIOR
        if decision == MemoryCase.Decision.CONFIRMED
        else MemoryCase.Status.FALSE_POSITIVE
    )
    case.save()
    log_event(actor=reviewer, action=f"review_{decision}", case=case, reason=reason)
    return case


@transaction.atomic
def case_senior_edit(
    *, case_id: int, editor, context: str, content_summary: str, content_full: str, note=""
) -> tuple[MemoryCase, list]:
    """The senior expert's edit of a confirmed defect, re-audited at once. Returns the
    case and the re-audit's findings (empty: the memory passed and the case is closed)."""
    require_role(editor, Role.ARBITRATOR, "edit a memory after the audit")
    case = (
        MemoryCase.objects.select_for_update()
        .select_related("run__settings_version")
        .filter(pk=case_id)
        .first()
    )
    if case is None:
        raise AuditError(f"There is no audit case {case_id}.")
    if case.status != MemoryCase.Status.SENIOR:
        raise AuditError(
            f"This memory is at “{case.get_status_display()}”; only confirmed defects are edited."
        )
    memory = Memory.objects.select_for_update().get(pk=case.memory_id)
    new = {"context": context, "content_summary": content_summary, "content_full": content_full}
    new = {k: v.replace("\r\n", "\n").strip() for k, v in new.items()}
    if any(not v for v in new.values()):
        raise AuditError("Context, summary and narrative must all be non-empty.")
    changes = {k: v for k, v in new.items() if getattr(memory, k) != v}
    if not changes:
        raise AuditError("Nothing changed: edit the flagged text before saving.")
    edits = case.versions.filter(origin=MemoryVersion.Origin.SENIOR_EDIT).count() + 1
    memory_change(
        memory=memory,
        changes=changes,
        origin=MemoryVersion.Origin.SENIOR_EDIT,
        author=editor,
        case=case,
        note=note,
    )
    findings = reaudit_memory(
        memory=memory, config=case.run.settings_version.as_config(), changes={}
    )
    case.flags.filter(current=True).update(current=False)
    MemoryFlag.objects.bulk_create(case_flags(case, findings, f"senior edit {edits}"))
    if not findings:
        case.status = MemoryCase.Status.REVISED
        case.save(update_fields=["status", "updated_at"])
    log_event(
        actor=editor,
        action="senior_edit",
        case=case,
        fields=sorted(changes),
        passed=not findings,
    )
    return case, findings
