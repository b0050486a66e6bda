"""The optional LLM classifier: one verdict per memory and criterion, recorded apart from
the pattern result; a defect the patterns missed sends the memory to manual review."""

from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality import criteria, repair
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    AuditError,
    AuditRun,
    ClassifierResult,
    MemoryCase,
    MemoryFlag,
)
from audit.memory_quality.services.configuration import REPAIR_ROUNDS, classifier_provider
from audit.memory_quality.services.records import (
    ensure_original_versions,
    log_event,
    require_role,
)
from audit.memory_quality.services.repair_loop import memory_dict
from heartbench_site.base.roles import Role
from llm import make_client


@transaction.atomic
def classifier_run_start(*, run_id: int, criterion: int, actor) -> int:
    """Queue the classifier for one criterion over the run's memories; returns how many
    calls were queued (memories already classified on it are skipped)."""
    require_role(actor, Role.ADMIN, "run the LLM classifier")
    run = AuditRun.objects.filter(pk=run_id).first()
    if run is None or run.status != AuditRun.Status.FINISHED:
        raise AuditError("Run the classifier on a finished audit run.")
    if criterion not in criteria.CRITERIA:
        raise AuditError("The criteria are numbered 1-6.")
    if classifier_provider() is None:
        raise AuditError("No classifier model is configured (HEARTBENCH_AUDIT_CLASSIFIER_*).")
    memories = Memory.objects.all()
    if run.character_keys:
        memories = memories.filter(character__key__in=run.character_keys)
    done = ClassifierResult.objects.filter(run=run, criterion=criterion).values("memory_id")
    ids = list(memories.exclude(pk__in=done).values_list("pk", flat=True))
    # The tasks module imports this one: the dispatcher is looked up at call time.
    from audit.memory_quality.celery_tasks import dispatch_classifications

    dispatch_classifications(run.pk, ids, criterion)
    log_event(actor=actor, action="classifier_started", run=run, criterion=criterion, n=len(ids))
    return len(ids)


def classifier_check(*, run_id: int, memory_pk: int, criterion: int, provider=None):
    """One classifier verdict, recorded apart from the pattern result. A defect the
    patterns missed adds a flag (source "classifier") and sends the memory to manual
    review; a verdict on a pattern flag confirms or rejects it without changing it.
    Idempotent: a memory classified on the criterion already is left alone."""
    existing = ClassifierResult.objects.filter(
        run_id=run_id, memory_id=memory_pk, criterion=criterion
    ).first()
    if existing is not None:
        return existing
    memory = Memory.objects.get(pk=memory_pk)
    system, user = repair.classifier_prompt(memory=memory_dict(memory), criterion=criterion)
    client = make_client(provider or classifier_provider())
    try:
        result = client.complete_json(
            system=system, user=user, schema=repair.CLASSIFIER_SCHEMA, max_attempts=REPAIR_ROUNDS
        )
    finally:
        client.close()
    return _classifier_record(run_id=run_id, memory=memory, criterion=criterion, result=result)


@transaction.atomic
def _classifier_record(*, run_id, memory, criterion, result):
    run = AuditRun.objects.select_for_update().get(pk=run_id)
    existing = ClassifierResult.objects.filter(run=run, memory=memory, criterion=criterion).first()
    if existing is not None:
        return existing
    case = MemoryCase.objects.filter(run=run, memory=memory).first()
    pattern_flagged = bool(
        case and case.flags.filter(current=True, criterion=criterion, source="pattern").exists()
    )
    verdict, rationale = ClassifierResult.Verdict.FAILED, result.error_message or ""
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
        call=result.as_dict(),
    )
    if verdict == ClassifierResult.Verdict.ADDS:
        evidence = (result.parsed.get("evidence") or "").strip()
        spans = []
        for name in MEMORY_TEXT_FIELDS:
            start = getattr(memory, name).find(evidence) if evidence else -1
            if start >= 0:
                spans = [
                    {"field": name, "start": start, "end": start + len(evidence), "text": evidence}
                ]
                break
        if case is None:
            ensure_original_versions([memory])
            case = MemoryCase.objects.create(
                run=run,
                memory=memory,
                character_id=memory.character_id,
                status=MemoryCase.Status.REVIEW,
                escalated=True,
                repair_note="Flag added by the LLM classifier: a person decides.",
            )
        MemoryFlag.objects.create(
            case=case,
            criterion=criterion,
            field=spans[0]["field"] if spans else "content_full",
            detail=f"LLM classifier: {rationale}"[:500],
            spans=spans,
            audit_pass="classifier",
            source=MemoryFlag.Source.CLASSIFIER,
        )
    log_event(actor=None, action="classified", run=run, criterion=criterion, verdict=verdict)
    return record
