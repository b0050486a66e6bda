"""The optional LLM classifier: one verdict per memory and criterion, recorded apart from
the pattern result; a defect the patterns missed goes through the repair loop like a
pattern flag (App. B.6: flagged records enter the targeted repair loop)."""

from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality import criteria
from audit.memory_quality.models import (
    AuditCall,
    AuditError,
    AuditRun,
    ClassifierResult,
    MemoryCase,
    MemoryFlag,
)
from audit.memory_quality.services import checks
from audit.memory_quality.services.configuration import classifier_provider, repair_provider
from audit.memory_quality.services.records import (
    audit_call_record,
    case_flags,
    ensure_original_versions,
    log_event,
    require_role,
)
from audit.memory_quality.services.spending import audit_llm_call_held
from core.roles import Role
from core.tasks import enqueue_on_commit


@transaction.atomic
def classifier_run_start(*, run_id: int, criterion: int, actor) -> int:
    """Queue the classifier for one criterion over the run's memories; returns how many
    calls were queued (memories with a verdict on it are skipped; a memory whose call
    failed is asked again)."""
    require_role(actor, Role.ADMIN, "run the LLM classifier")
    run = AuditRun.objects.filter(pk=run_id).first()
    if run is not None and run.is_stopped_at_budget:
        raise AuditError(
            f"Audit run {run.pk} is stopped at a spending limit; resume it (with a higher "
            "budget) before running the classifier."
        )
    if run is None or run.status != AuditRun.Status.FINISHED:
        raise AuditError("Run the classifier on a finished audit run.")
    if criterion not in criteria.CRITERIA:
        raise AuditError("The criteria are numbered 1-6.")
    if classifier_provider() is None:
        raise AuditError("No classifier model is configured (HEARTBENCH_AUDIT_CLASSIFIER_*).")
    memories = Memory.objects.all()
    if run.character_keys:
        memories = memories.filter(character__key__in=run.character_keys)
    done = (
        ClassifierResult.objects.filter(run=run, criterion=criterion)
        .exclude(verdict=ClassifierResult.Verdict.FAILED)
        .values("memory_id")
    )
    ids = list(memories.exclude(pk__in=done).values_list("pk", flat=True))
    enqueue_on_commit(
        "audit.classify_memory",
        what=f"The classification of run {run.pk} on criterion {criterion}",
        calls=[(run.pk, pk, criterion) for pk in ids],
    )
    log_event(actor=actor, action="classifier_started", run=run, criterion=criterion, n=len(ids))
    return len(ids)


def classifier_check(*, run_id: int, memory_pk: int, criterion: int, provider=None):
    """One classifier verdict, recorded apart from the pattern result. A defect the
    patterns missed adds a flag (source "classifier") that goes through the repair loop
    like a pattern flag; a verdict on a pattern flag confirms or rejects it without
    changing it. Idempotent: a memory with a verdict on the criterion is left alone; a
    failed call is made again and its new result replaces the failed one (the failed
    call stays recorded). None when the run is at a spending limit: no call is made, and
    resuming the run asks again (``spending``)."""
    existing = ClassifierResult.objects.filter(
        run_id=run_id, memory_id=memory_pk, criterion=criterion
    ).first()
    if existing is not None and existing.verdict != ClassifierResult.Verdict.FAILED:
        return existing
    if audit_llm_call_held(run_id=run_id):
        return None
    memory = Memory.objects.get(pk=memory_pk)
    result = checks.classify(
        memory=checks.memory_dict(memory),
        criterion=criterion,
        provider=provider or classifier_provider(),
    )
    return _classifier_record(run_id=run_id, memory=memory, criterion=criterion, result=result)


@transaction.atomic
def _classifier_record(*, run_id, memory, criterion, result):
    run = AuditRun.objects.select_for_update().get(pk=run_id)
    existing = ClassifierResult.objects.filter(run=run, memory=memory, criterion=criterion).first()
    if existing is not None and existing.verdict != ClassifierResult.Verdict.FAILED:
        return existing
    if existing is not None:
        existing.delete()  # a failed call asked again: the new verdict replaces it
    case = MemoryCase.objects.select_for_update().filter(run=run, memory=memory).first()
    pattern_flagged = bool(
        case and case.flags.filter(current=True, criterion=criterion, source="pattern").exists()
    )
    verdict, rationale = ClassifierResult.Verdict.FAILED, result.failure_reason or ""
    if result.ok:
        defect = bool(result.parsed["defect"])
        rationale = result.parsed.get("rationale", "")
        if defect:
            verdict = (
                ClassifierResult.Verdict.CONFIRMS
                if pattern_flagged
                else ClassifierResult.Verdict.ADDS
            )
        else:
            verdict = ClassifierResult.Verdict.REJECTS
    record = ClassifierResult.objects.create(
        run=run,
        memory=memory,
        criterion=criterion,
        verdict=verdict,
        rationale=rationale[:2000],
        call=audit_call_record(
            run_id=run.pk,
            character_id=memory.character_id,
            kind=AuditCall.Kind.CLASSIFIER,
            result=result,
        ),
    )
    if verdict == ClassifierResult.Verdict.ADDS:
        finding = checks.classifier_finding(
            memory=checks.memory_dict(memory), criterion=criterion, parsed=result.parsed
        )
        _add_flag(run=run, memory=memory, case=case, finding=finding)
    log_event(actor=None, action="classified", run=run, criterion=criterion, verdict=verdict)
    return record


def _add_flag(*, run, memory, case, finding) -> None:
    """The classifier's flag on its memory's case. A memory with no case, or whose
    repair had passed, goes (back) to the repair loop; a case under repair takes the
    flag at its next attempt; a case with people (or closed by them) keeps its step."""
    version = run.settings_version
    repairable = repair_provider() is not None and version.max_repair_attempts > 0
    reopen = case is None or case.status == MemoryCase.Status.REPAIRED
    if case is None:
        ensure_original_versions([memory])
        case = MemoryCase.objects.create(
            run=run,
            memory=memory,
            character_id=memory.character_id,
            initial_criteria=[finding.criterion],
        )
    MemoryFlag.objects.bulk_create(case_flags(case, [finding], "classifier"))
    if not reopen:
        return
    if repairable:
        case.status = MemoryCase.Status.REPAIRING
        case.save(update_fields=["status", "updated_at"])
        enqueue_on_commit(
            "audit.repair_memory", what="The repair of audit cases", calls=[(case.pk,)]
        )
    else:
        case.status = MemoryCase.Status.REVIEW
        case.escalated = True
        case.repair_note = (
            "Flag added by the LLM classifier; no repair model is configured "
            "(HEARTBENCH_AUDIT_REPAIR_*) or automated repair is off: a person decides."
        )
        case.save(update_fields=["status", "escalated", "repair_note", "updated_at"])
