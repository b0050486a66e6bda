"""The automated audit (App. B.6 criteria 1-6): starting a run and executing it character
by character; the flagged memories then go to the repair loop."""

import logging
import time

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Character, Memory
from audit.memory_quality import criteria, selectors
from audit.memory_quality.models import (
    NOTE_MAX_CHARS,
    AuditError,
    AuditRun,
    MemoryCase,
    MemoryFlag,
)
from audit.memory_quality.services.configuration import audit_settings_current, repair_provider
from audit.memory_quality.services.records import (
    case_flags,
    ensure_original_versions,
    log_event,
    require_role,
)
from core.plurals import agree
from core.roles import Role
from core.tasks import enqueue_on_commit
from core.text_rules import check_text

logger = logging.getLogger(__name__)


@transaction.atomic
def audit_run_start(
    *, created_by, character_keys=(), note: str = "", settings_version=None
) -> AuditRun:
    if created_by is not None:
        require_role(created_by, Role.ADMIN, "start an audit run")
    check_text(note or "", label="Note", limit=NOTE_MAX_CHARS, error=AuditError)
    running = AuditRun.objects.filter(
        status__in=[AuditRun.Status.PENDING, AuditRun.Status.RUNNING]
    ).first()
    if running is not None:
        raise AuditError(f"{running} is still {running.status}; wait for it to finish.")
    keys = sorted(set(character_keys))
    known = set(Character.objects.filter(key__in=keys).values_list("key", flat=True))
    if set(keys) - known:
        raise AuditError(
            f"Unknown {agree(len(set(keys) - known), 'character', 'characters')}: "
            f"{', '.join(sorted(set(keys) - known))}."
        )
    version = settings_version or audit_settings_current()
    memories = Memory.objects.all()
    if keys:
        memories = memories.filter(character__key__in=keys)
    run = AuditRun.objects.create(
        settings_version=version,
        character_keys=keys,
        note=note,
        created_by=created_by,
        memory_total=memories.count(),
    )
    log_event(actor=created_by, action="run_started", run=run, settings=version.number)
    return run


def audit_run_execute(*, run_id: int, dispatch_repairs: bool = True, provider=None) -> AuditRun:
    """Criteria 1-6 over the run's memories, character by character; each character's
    results and the progress commit together, so the progress bar moves. Idempotent: a
    finished run is returned as it is; a redelivered running one starts over."""
    with transaction.atomic():
        run = AuditRun.objects.select_for_update().get(pk=run_id)
        if run.status in (AuditRun.Status.FINISHED, AuditRun.Status.FAILED):
            return run
        run.cases.all().delete()
        run.status = AuditRun.Status.RUNNING
        run.started_at = timezone.now()
        run.memory_done = 0
        run.summary = {}
        run.save()
    started = time.perf_counter()
    try:
        config = run.settings_version.as_config()
        compiled = criteria.CompiledConfig.of(config)
        characters = Character.objects.order_by("key")
        if run.character_keys:
            characters = characters.filter(key__in=run.character_keys)
        per_character, reports = {}, []
        for character in characters:
            texts = selectors.memory_texts(Memory.objects.filter(character=character))
            result = criteria.audit_memories(texts, config, compiled=compiled)
            with transaction.atomic():
                _record_character(run=run, character=character, result=result)
                per_character[character.key] = len(texts)
                reports.append(result.length_report)
                AuditRun.objects.filter(pk=run.pk).update(
                    memory_done=sum(per_character.values()),
                    summary={"per_character": per_character},
                )
        with transaction.atomic():
            run = AuditRun.objects.select_for_update().get(pk=run.pk)
            run.status = AuditRun.Status.FINISHED
            run.finished_at = timezone.now()
            run.memory_done = run.memory_total = sum(per_character.values())
            run.summary = {
                "per_character": per_character,
                "length_report": _merge_reports(reports),
                "seconds": round(time.perf_counter() - started, 3),
            }
            run.save()
            log_event(actor=None, action="run_finished", run=run, flagged=run.cases.count())
            _start_repairs(run=run, dispatch=dispatch_repairs, provider=provider)
    except Exception as error:
        logger.exception("audit run %s failed", run_id)
        AuditRun.objects.filter(pk=run_id).update(
            status=AuditRun.Status.FAILED, error=f"{type(error).__name__}: {error}"
        )
        raise
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
        enqueue_on_commit(
            "audit.repair_memory",
            what="The repair of audit cases",
            calls=[(pk,) for pk in run.cases.values_list("pk", flat=True)],
        )
