"""The automated audit (App. B.6 criteria 1-6): starting a run and executing it character
by character; the flagged memories then go to the repair loop.

A run has one unit per character (``AuditUnit``) and its states are the one
``RunStatus`` (issue #33): ``FLOW`` (``core.llm_runs.services.RunFlow``) starts it,
cancels it (characters not yet audited are cancelled at once, the one being audited
finishes first), resumes it (the cancelled characters wait again), retries its failed
characters and finishes it. One task, ``audit.run_memory_audit``, audits the run's
waiting characters one after the other; a redelivered task (a worker that died) goes on
with the characters not yet done. A character's cases, flags and progress commit with
its ``done`` state, so no character is recorded twice.
"""

import logging

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from annotation.corpus.models import Character, Memory
from audit.memory_quality import criteria, selectors
from audit.memory_quality.models import (
    NOTE_MAX_CHARS,
    AuditError,
    AuditRun,
    AuditUnit,
    MemoryCase,
    MemoryFlag,
)
from audit.memory_quality.services.configuration import (
    audit_settings_current,
    repair_provider,
    run_providers,
)
from audit.memory_quality.services.records import (
    case_flags,
    ensure_original_versions,
    log_event,
    require_role,
)
from core.llm_runs.models import ACTIVE, RunStatus
from core.llm_runs.services import RunFlow
from core.llm_runs.spending import parse_budget
from core.plurals import agree
from core.roles import Role
from core.tasks import enqueue_on_commit
from core.text_rules import check_text

logger = logging.getLogger(__name__)

FLOW = RunFlow(
    run_model=AuditRun,
    unit_model=AuditUnit,
    error=AuditError,
    label="Audit run",
    providers=run_providers,
)
UnitStatus = AuditUnit.Status
#: A run that holds the audit: a new one waits until it has ended.
BUSY = (RunStatus.PENDING, RunStatus.RUNNING, RunStatus.CANCELLING)
TASK = "audit.run_memory_audit"


def queue_run(run: AuditRun) -> None:
    """Send the run to a worker once the caller's transaction commits."""
    enqueue_on_commit(TASK, run.pk, what=f"Audit run {run.pk}")


@transaction.atomic
def audit_run_start(
    *, created_by, character_keys=(), note: str = "", settings_version=None, budget_usd=None
) -> AuditRun:
    """A new run, pending, with a unit per character it covers; the caller queues it
    (``queue_run``) and the worker starts it. ``budget_usd`` (None: none) holds the
    run's repair and classifier calls once their recorded cost reaches it
    (``services.spending``)."""
    if created_by is not None:
        require_role(created_by, Role.ADMIN, "start an audit run")
    check_text(note or "", label="Note", limit=NOTE_MAX_CHARS, error=AuditError)
    running = AuditRun.objects.filter(status__in=BUSY).first()
    if running is not None:
        raise AuditError(f"{running} is still {running.status}; wait for it to finish.")
    keys = sorted(set(character_keys))
    known = set(Character.objects.filter(key__in=keys).values_list("key", flat=True))
    if set(keys) - known:
        raise AuditError(
            f"Unknown {agree(len(set(keys) - known), 'character', 'characters')}: "
            f"{', '.join(sorted(set(keys) - known))}."
        )
    budget = budget_value(budget_usd)
    version = settings_version or audit_settings_current()
    characters = Character.objects.order_by("key")
    if keys:
        characters = characters.filter(key__in=keys)
    run = AuditRun.objects.create(
        settings_version=version,
        character_keys=keys,
        note=note,
        created_by=created_by,
        memory_total=Memory.objects.filter(character__in=characters).count(),
        budget_usd=budget,
    )
    AuditUnit.objects.bulk_create(AuditUnit(run=run, character=c) for c in characters)
    log_event(actor=created_by, action="run_started", run=run, settings=version.number)
    return run


def budget_value(value):
    """A budget as typed (``core.llm_runs.spending.parse_budget``), refused as an
    ``AuditError`` naming the field."""
    try:
        return parse_budget(value)
    except ValueError as error:
        raise AuditError(str(error)) from None


@transaction.atomic
def audit_run_cancel(*, run_id: int, user=None) -> AuditRun:
    """Stop a run: the characters not yet audited are cancelled now, the one being
    audited finishes (its results are kept). Resume audits the cancelled ones."""
    run = FLOW.lock(run_id, missing=f"There is no audit run {run_id}.")
    FLOW.cancel_locked(run)
    log_event(actor=user, action="run_cancelled", run=run)
    return run


@transaction.atomic
def audit_run_resume(*, run_id: int, user=None) -> AuditRun:
    """cancelled → running: the cancelled characters wait again and a worker audits
    them; the characters audited already stay as they are."""
    run = FLOW.lock(run_id, missing=f"There is no audit run {run_id}.")
    if run.status != RunStatus.CANCELLED:
        hint = " (wait until it has stopped)." if run.status == RunStatus.CANCELLING else ""
        raise FLOW.refusal(run, "a cancelled run can be resumed", hint=hint)
    FLOW.reopen_locked(run, statuses=[UnitStatus.CANCELLED, UnitStatus.PENDING])
    log_event(actor=user, action="run_resumed", run=run)
    queue_run(run)
    return run


@transaction.atomic
def audit_run_retry(*, run_id: int, user=None) -> AuditRun:
    """finished with failures → running: the failed characters are audited again."""
    run = FLOW.lock(run_id, missing=f"There is no audit run {run_id}.")
    if run.status != RunStatus.FINISHED_WITH_FAILURES:
        raise FLOW.refusal(run, "a run with failed characters can retry them")
    if not FLOW.units(run.pk).filter(status=UnitStatus.FAILED).exists():
        raise AuditError(f"Audit run {run.pk} has no failed characters to retry.")
    FLOW.reopen_locked(run, statuses=[UnitStatus.FAILED])
    run.error = ""
    run.save(update_fields=["error"])
    log_event(actor=user, action="run_retried", run=run)
    queue_run(run)
    return run


def audit_run_execute(*, run_id: int, dispatch_repairs: bool = True, provider=None) -> AuditRun:
    """Criteria 1-6 over the run's waiting characters, one after the other; each
    character's results and the progress commit together, so the progress bar moves.
    Idempotent: a run that is over is returned as it is; a redelivered running one goes
    on with the characters not yet done. A cancel stops it between two characters."""
    with transaction.atomic():
        run = FLOW.lock(run_id)
        if run.status == RunStatus.PENDING:
            FLOW.start_locked(run)
        if run.status not in ACTIVE:
            return run
    try:
        config = run.settings_version.as_config()
        compiled = criteria.CompiledConfig.of(config)
    except Exception as error:  # a settings version the checks cannot use
        logger.exception("audit run %s cannot compile its settings", run_id)
        FLOW.units(run_id).filter(status__in=[UnitStatus.PENDING, UnitStatus.RUNNING]).update(
            status=UnitStatus.FAILED,
            error_kind=type(error).__name__[:40],
            error_message=str(error)[:2000],
            updated_at=timezone.now(),
        )
        AuditRun.objects.filter(pk=run_id).update(error=f"{type(error).__name__}: {error}")
    else:
        waiting = FLOW.units(run_id).filter(status__in=[UnitStatus.PENDING, UnitStatus.RUNNING])
        for unit_id in waiting.order_by("character__key").values_list("pk", flat=True):
            if FLOW.cancel_requested(run_id=run_id):
                break
            _audit_unit(run, unit_id, config, compiled)
            _progress(run_id)
    return _finish(run_id, dispatch=dispatch_repairs, provider=provider)


def _audit_unit(run: AuditRun, unit_id: int, config, compiled) -> None:
    with transaction.atomic():
        unit = AuditUnit.objects.select_for_update().select_related("character").get(pk=unit_id)
        if unit.status not in (UnitStatus.PENDING, UnitStatus.RUNNING):
            return
        unit.status = UnitStatus.RUNNING
        unit.attempts += 1
        unit.save(update_fields=["status", "attempts", "updated_at"])
    try:
        texts = selectors.memory_texts(Memory.objects.filter(character=unit.character))
        result = criteria.audit_memories(texts, config, compiled=compiled)
    except Exception as error:
        logger.exception("audit run %s failed on %s", run.pk, unit.character_id)
        AuditUnit.objects.filter(pk=unit_id, status=UnitStatus.RUNNING).update(
            status=UnitStatus.FAILED,
            error_kind=type(error).__name__[:40],
            error_message=str(error)[:2000],
            updated_at=timezone.now(),
        )
        return
    with transaction.atomic():
        unit = AuditUnit.objects.select_for_update().select_related("character").get(pk=unit_id)
        if unit.status != UnitStatus.RUNNING:
            return  # another delivery recorded it
        _record_character(run=run, character=unit.character, result=result)
        unit.status = UnitStatus.DONE
        unit.memory_count = len(texts)
        unit.length_report = result.length_report
        unit.save(update_fields=["status", "memory_count", "length_report", "updated_at"])


def _done_units(run_id: int):
    return FLOW.units(run_id).filter(status=UnitStatus.DONE).select_related("character")


@transaction.atomic
def _progress(run_id: int) -> None:
    run = FLOW.lock(run_id)
    done = _done_units(run_id)
    run.memory_done = done.aggregate(n=Sum("memory_count"))["n"] or 0
    run.summary = {**run.summary, "per_character": {u.character.key: u.memory_count for u in done}}
    run.save(update_fields=["memory_done", "summary"])


def _finish(run_id: int, *, dispatch: bool, provider) -> AuditRun:
    """The run's final state once every character is final: its summary, and the
    repairs of a run that finished."""
    with transaction.atomic():
        run = FLOW.lock(run_id)
        was_active = run.status in ACTIVE
        FLOW.finish_locked(run)
        if not was_active or run.status in ACTIVE:
            return run
        done = list(_done_units(run_id))
        per_character = {u.character.key: u.memory_count for u in done}
        run.memory_done = sum(per_character.values())
        if run.status == RunStatus.FINISHED:
            run.memory_total = run.memory_done
        failed = FLOW.units(run_id).filter(status=UnitStatus.FAILED)
        if failed.exists() and not run.error:
            run.error = "; ".join(
                f"{u.character.key}: {u.error_kind}: {u.error_message}"
                for u in failed.select_related("character")
            )[:2000]
        run.summary = {
            "per_character": per_character,
            "length_report": _merge_reports([u.length_report for u in done if u.length_report]),
            "seconds": round((run.finished_at - run.started_at).total_seconds(), 3)
            if run.started_at
            else 0,
        }
        run.save(update_fields=["memory_done", "memory_total", "summary", "error"])
        log_event(actor=None, action="run_finished", run=run, flagged=run.cases.count())
        if run.status != RunStatus.CANCELLED:
            _start_repairs(run=run, dispatch=dispatch, provider=provider)
    return run


def _merge_reports(reports: list[dict]) -> dict:
    keys = ("below_guided", "within_guided", "above_guided", "over_limit")
    merged = {k: sum(r[k] for r in reports) for k in keys}
    total = sum(merged.values())
    merged["mean_chars"] = (
        round(sum(r["mean_chars"] * sum(r[k] for k in keys) for r in reports) / total)
        if total
        else 0
    )
    return merged


def _record_character(*, run: AuditRun, character: Character, result) -> None:
    flagged = {key: found for key, found in result.findings.items() if found}
    if not flagged:
        return
    memories = list(Memory.objects.filter(memory_id__in=flagged))
    ensure_original_versions(memories)
    cases = MemoryCase.objects.bulk_create(
        MemoryCase(
            run=run,
            memory=m,
            character=character,
            initial_criteria=sorted({f.criterion for f in flagged[m.memory_id]}),
        )
        for m in memories
    )
    flags = []
    for case in cases:
        flags += case_flags(case, flagged[case.memory.memory_id], "initial")
    MemoryFlag.objects.bulk_create(flags)


def _start_repairs(*, run: AuditRun, dispatch: bool, provider) -> None:
    settings_version = run.settings_version
    provider = provider or repair_provider()
    if provider is None or settings_version.max_repair_attempts == 0:
        note = (
            "No repair model is configured (HEARTBENCH_AUDIT_REPAIR_*)."
            if provider is None
            else "Automated repair is off in this settings version."
        )
        run.cases.filter(status=MemoryCase.Status.REPAIRING).update(
            status=MemoryCase.Status.REVIEW, escalated=True, repair_note=note
        )
        return
    if dispatch:
        repairing = run.cases.filter(status=MemoryCase.Status.REPAIRING)
        enqueue_on_commit(
            "audit.repair_memory",
            what="The repair of audit cases",
            calls=[(pk,) for pk in repairing.values_list("pk", flat=True)],
        )
