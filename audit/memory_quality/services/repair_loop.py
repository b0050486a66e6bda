"""The automated repair loop (App. B.6): each defect of a flagged memory (one criterion
failed on one field, by the pattern checks or the LLM classifier) gets up to three
targeted attempts (the settings version's ``max_repair_attempts``), counted per defect.
An attempt regenerates the defect's field(s) with the defect's instruction appended to
the memory's original generation prompt (as its generation call sent it; for a memory
with none stored, the generation constraints restated: the character's full
specification and its age-bin context), and is re-checked at once by the same checks that screen the
memories (services.checks). A rewrite that clears its defect is kept; one that does not
is kept on the attempt only. A memory with a defect still flagged after its attempts
goes to manual review.

The LLM calls of an attempt (the rewrite and the classifier's re-check) happen outside
any transaction (no row lock is held over the network); the attempt is recorded
afterwards under the case's row lock, once.

With the fact check on (``fact_check``, issue #37), a rewrite that clears its defect is
kept only after it also keeps the original's facts: the case's next steps are the
check's two calls (each its own task, held at spending limits like an attempt); a
rewrite that fails it goes back as a further defect of the same loop."""

from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality import criteria, repair, selectors
from audit.memory_quality.models import (
    AuditCall,
    AuditError,
    FactCheck,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    RepairAttempt,
    RepairDefect,
)
from audit.memory_quality.services import checks, fact_check
from audit.memory_quality.services.configuration import REPAIR_ROUNDS, repair_provider
from audit.memory_quality.services.records import (
    audit_call_record,
    case_flags,
    log_event,
    memory_change,
)
from audit.memory_quality.services.spending import audit_llm_call_held
from core.display import memory_field_label
from core.plurals import counted
from core.tasks import enqueue_on_commit
from llm import ProviderConfig, make_client

# Kept for the callers that re-audit a text (review, classifier).
memory_dict = checks.memory_dict


def _findings_dicts(flags) -> list[dict]:
    return [
        {
            "criterion": f.criterion,
            "field": f.field,
            "detail": f.detail,
            "spans": f.spans,
            "source": f.source,
        }
        for f in flags
    ]


def sync_defects(case: MemoryCase, flags) -> dict[tuple[int, str], RepairDefect]:
    """A defect row for each (criterion, field) the current flags name; a repaired
    defect flagged again is open again, with the attempts it has left."""
    defects = {(d.criterion, d.field): d for d in case.defects.all()}
    for flag in flags:
        key = (flag.criterion, flag.field)
        defect = defects.get(key)
        if defect is None:
            defects[key] = RepairDefect.objects.create(
                case=case, criterion=flag.criterion, field=flag.field, source=flag.source
            )
        elif defect.status == RepairDefect.Status.REPAIRED:
            defect.status = RepairDefect.Status.OPEN
            defect.save(update_fields=["status"])
    return defects


def repair_attempt_run(
    *,
    case_id: int,
    provider: ProviderConfig | None = None,
    classifier: ProviderConfig | None = None,
    dispatch=True,
):
    """One targeted repair attempt at the next open defect of a flagged memory. Returns
    the attempt, or None when the case needs none (resolved already, or a redelivered
    task, or its run at a spending limit: the case waits under repair until the run is
    resumed, ``spending``). A defect still flagged after its attempts sends the case to
    manual review."""
    # Asked before the case's lock is taken: the guard may lock the run (run first).
    state = MemoryCase.objects.filter(pk=case_id).values_list("status", "run_id").first()
    if state and state[0] == MemoryCase.Status.REPAIRING and audit_llm_call_held(run_id=state[1]):
        return None
    step = fact_check.pending_step(case_id=case_id)
    if step is not None:  # the last rewrite awaits its fact check: that comes first
        return _fact_check_step(case_id=case_id, step=step, provider=provider, dispatch=dispatch)
    with transaction.atomic():
        case = (
            MemoryCase.objects.select_for_update()
            .select_related("memory", "run__settings_version")
            .get(pk=case_id)
        )
        if case.status != MemoryCase.Status.REPAIRING:
            return None
        limit = case.run.settings_version.max_repair_attempts
        flags = list(case.flags.filter(current=True))
        if not flags:
            case.status = MemoryCase.Status.REPAIRED
            case.save(update_fields=["status", "updated_at"])
            return None
        defects = sync_defects(case, flags)
        current = sorted({(f.criterion, f.field) for f in flags})
        spent = [defects[k] for k in current if defects[k].attempts_used >= limit]
        if spent:
            _exhaust(case, spent, limit=limit)
            return None
        target = defects[current[0]]
        findings = _findings_dicts(flags)
        target_finding = next(f for f in findings if (f["criterion"], f["field"]) == current[0])
        number = case.attempts.count() + 1
        previous = target.attempts.order_by("-defect_attempt").first()
        memory = case.memory
        memory_data = checks.memory_dict(memory)
        profile = selectors.repair_profile(character_id=case.character_id)
        constraints = checks.generation_constraints(memory)
        generation = selectors.generation_prompt(memory_pk=memory.pk)
        config = case.run.settings_version.as_config()
        lost_facts = fact_check.feedback_block(previous)
        recheck_failed = previous is not None and not fact_check.was_checked(previous)
    fields = repair.defect_fields(target.criterion, target.field)
    system, user = repair.repair_prompt(
        memory=memory_data,
        target=target_finding,
        findings=findings,
        fields=fields,
        profile=profile,
        constraints=constraints,
        # A rewrite sent to the fact check had cleared its defect: its re-check is no issue.
        previous_findings=previous.audit_findings if recheck_failed else (),
        generation=generation,
    )
    if lost_facts:
        user += "\n\n" + lost_facts
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
    changes, recheck, recheck_calls = {}, ([], [], False), []
    if result.ok:
        changes = {f: result.parsed[f] for f in fields}
        recheck = checks.classifier_findings(
            memory=memory_data | changes, config=config, provider=classifier, calls=recheck_calls
        )
    return _repair_attempt_record(
        case_id=case_id,
        number=number,
        defect_id=target.pk,
        fields=fields,
        system=system,
        user=user,
        result=result,
        changes=changes,
        recheck=recheck,
        recheck_calls=recheck_calls,
        dispatch=dispatch,
    )


@transaction.atomic
def _repair_attempt_record(
    *,
    case_id,
    number,
    defect_id,
    fields,
    system,
    user,
    result,
    changes,
    recheck,
    recheck_calls=(),
    dispatch,
):
    case = (
        MemoryCase.objects.select_for_update()
        .select_related("run__settings_version")
        .get(pk=case_id)
    )
    if case.status != MemoryCase.Status.REPAIRING or case.attempts.filter(number=number).exists():
        return None  # a redelivered task: this attempt is recorded already
    defect = RepairDefect.objects.select_for_update().get(pk=defect_id)
    memory = Memory.objects.select_for_update().get(pk=case.memory_id)
    config = case.run.settings_version.as_config()
    classifier_found, classifier_errors, classifier_used = recheck
    used = [checks.PATTERN] + ([checks.CLASSIFIER] if classifier_used else [])
    findings, passed, error = [], False, ""
    if result.ok:
        findings = checks.merge(
            checks.pattern_findings(memory=memory, config=config, changes=changes),
            classifier_found,
        )
        if classifier_errors:
            error = "The LLM classifier's re-check failed: " + "; ".join(classifier_errors)
        else:
            passed = all(f.defect != (defect.criterion, defect.field) for f in findings)
    else:
        error = f"{result.error_kind}: {result.error_message}"
    # A rewrite that cleared its defect is kept once it keeps the original's facts.
    awaits_facts = passed and fact_check.applies(defect.criterion)
    passed = passed and not awaits_facts
    defect.attempts_used += 1
    attempt = RepairAttempt.objects.create(
        case=case,
        number=number,
        defect=defect,
        defect_attempt=defect.attempts_used,
        criteria=[defect.criterion],
        fields=fields,
        checks=used,
        system_prompt=system,
        user_prompt=user,
        output=result.parsed if result.ok else None,
        call=audit_call_record(
            run_id=case.run_id,
            character_id=case.character_id,
            kind=AuditCall.Kind.REPAIR,
            result=result,
        ),
        error=error[:2000],
        audit_findings=[f.as_dict() for f in findings],
        passed=passed,
    )
    for call in recheck_calls:  # the re-check's classifier calls, paid for as well
        audit_call_record(
            run_id=case.run_id,
            character_id=case.character_id,
            kind=AuditCall.Kind.CLASSIFIER,
            result=call,
        )
    log_event(
        actor=None,
        action="repair_attempt",
        case=case,
        number=number,
        criterion=defect.criterion,
        field=defect.field,
        defect_attempt=defect.attempts_used,
        passed=passed,
        **({"awaits_fact_check": True} if awaits_facts else {}),
    )
    limit = case.run.settings_version.max_repair_attempts
    if awaits_facts:
        defect.save(update_fields=["attempts_used"])
        fact_check.open_check(case=case, attempt=attempt, memory=memory, changes=changes)
    elif passed:
        return _keep_rewrite(case, defect, attempt, memory, findings=findings, dispatch=dispatch)
    else:
        defect.save(update_fields=["attempts_used"])
        if defect.attempts_used >= limit:
            _exhaust(case, [defect], limit=limit)
            return attempt
    _next_step(case, dispatch)
    return attempt


def _next_step(case: MemoryCase, dispatch: bool) -> None:
    if dispatch:
        enqueue_on_commit(
            "audit.repair_memory", what="The repair of audit cases", calls=[(case.pk,)]
        )


def _keep_rewrite(case, defect, attempt, memory, *, findings=None, dispatch) -> RepairAttempt:
    """The attempt's rewrite cleared its defect (and kept its facts): it becomes the
    memory's next version, and its re-check's ``findings`` (read back from the attempt
    when not given) the case's current flags."""
    number = attempt.number
    if findings is None:
        findings = [_finding(f, memory.memory_id) for f in attempt.audit_findings]
    defect.status = RepairDefect.Status.REPAIRED
    defect.save(update_fields=["status", "attempts_used"])
    memory_change(
        memory=memory,
        changes={f: attempt.output[f] for f in attempt.fields},
        origin=MemoryVersion.Origin.REPAIR,
        case=case,
        attempt=attempt,
        note=(
            f"Repair attempt {number} cleared criterion {defect.criterion} on "
            f"{defect.field} (attempt {defect.attempts_used} at this defect)."
        ),
        reaudit={
            "checks": attempt.checks,
            "findings": [f.as_dict() for f in findings],
            "passed": not findings,
        },
    )
    case.flags.filter(current=True).update(current=False)
    MemoryFlag.objects.bulk_create(case_flags(case, findings, f"repair {number}"))
    if not findings:
        case.status = MemoryCase.Status.REPAIRED
        case.save(update_fields=["status", "updated_at"])
        return attempt
    _next_step(case, dispatch)
    return attempt


def _finding(data: dict, memory_id: str) -> criteria.Finding:
    """A finding as the attempt stored it (``Finding.as_dict``), read back."""
    return criteria.Finding(
        memory=memory_id,
        criterion=data["criterion"],
        field=data["field"],
        detail=data["detail"],
        spans=tuple(criteria.Span(**span) for span in data.get("spans") or ()),
        related=data.get("related") or "",
        score=data.get("score"),
        source=data.get("source") or checks.PATTERN,
    )


def _fact_check_step(*, case_id, step, provider, dispatch) -> RepairAttempt | None:
    """One call of the pending fact check of the case's last rewrite, then its record:
    the next step queued, or the rewrite kept, or sent back as a further defect."""
    provider = provider or repair_provider()
    if provider is None:
        raise AuditError("No repair model is configured (HEARTBENCH_AUDIT_REPAIR_*).")
    result = fact_check.run_step_call(step, provider=provider)
    with transaction.atomic():
        case = (
            MemoryCase.objects.select_for_update()
            .select_related("run__settings_version")
            .get(pk=case_id)
        )
        if case.status != MemoryCase.Status.REPAIRING:
            return None
        check = fact_check.record_step(case=case, step=step, result=result)
        if check is None:
            return None  # a redelivered task: this step is recorded already
        attempt = RepairAttempt.objects.select_related("defect").get(pk=check.attempt_id)
        if check.status in FactCheck.PENDING:
            _next_step(case, dispatch)
            return attempt
        defect = RepairDefect.objects.select_for_update().get(pk=attempt.defect_id)
        log_event(
            actor=None,
            action="fact_check",
            case=case,
            number=attempt.number,
            status=check.status,
            omitted_rate=check.omitted_rate,
            contradicted=check.contradicted_count,
            invented=check.invented_count,
        )
        if check.status == FactCheck.Status.PASSED:
            attempt.passed = True
            attempt.save(update_fields=["passed"])
            memory = Memory.objects.select_for_update().get(pk=case.memory_id)
            return _keep_rewrite(case, defect, attempt, memory, dispatch=dispatch)
        limit = case.run.settings_version.max_repair_attempts
        if defect.attempts_used >= limit:
            _exhaust(case, [defect], limit=limit, why=fact_check.failure_note(check))
            return attempt
        _next_step(case, dispatch)
        return attempt


def _exhaust(case: MemoryCase, spent: list[RepairDefect], *, limit: int, why: str = "") -> None:
    for defect in spent:
        defect.status = RepairDefect.Status.EXHAUSTED
        defect.save(update_fields=["status"])
    # The note is read on the case page: the field as a reader names it.
    names = ", ".join(
        f"criterion {d.criterion} on the {memory_field_label(d.field).lower()}" for d in spent
    )
    note = f"Still flagged after {counted(limit, 'automated repair attempt')}: {names}."
    if why:
        note = f"Not repaired after {counted(limit, 'automated repair attempt')}: {names}; {why}."
    _escalate(case, note=note)


def _escalate(case: MemoryCase, *, note: str) -> None:
    case.status = MemoryCase.Status.REVIEW
    case.escalated = True
    case.repair_note = note[:300]
    case.save(update_fields=["status", "escalated", "repair_note", "updated_at"])
    log_event(actor=None, action="escalated", case=case, note=note)
