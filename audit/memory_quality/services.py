"""Writes of the memory quality audit (seed 000 §2.2 Stage 3, App. B.6).

Every transition is one keyword-only function that checks the state it starts from and
raises an ``AuditError`` a person can act on, and appends an ``AuditEvent``. The
LLM call of a repair attempt happens outside any transaction (no row lock is held over
the network); the attempt is recorded afterwards under the case's row lock, once.
"""

import hashlib
import logging
import time

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.corpus.models import Character, Memory
from audit.memory_quality import criteria, repair, selectors
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    VERSIONED_FIELDS,
    AuditError,
    AuditEvent,
    AuditRun,
    AuditSettings,
    ClassifierResult,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    RepairAttempt,
    TimelineEntry,
)
from heartbench_site.base.providers import configured_provider
from heartbench_site.base.roles import Role, has_any_role
from llm import ProviderConfig, make_client

logger = logging.getLogger(__name__)

REPAIR_PROVIDER_PREFIX = "HEARTBENCH_AUDIT_REPAIR"
CLASSIFIER_PROVIDER_PREFIX = "HEARTBENCH_AUDIT_CLASSIFIER"
# Structured-output rounds per repair attempt (a reply that fails the schema is sent
# back once with the problem named); the protocol's three attempts count separately.
REPAIR_ROUNDS = 2


def _event(*, actor, action: str, run=None, case=None, **details) -> None:
    AuditEvent.objects.create(actor=actor, action=action, run=run, case=case, details=details)


def _require_role(user, role: Role, doing: str) -> None:
    if not has_any_role(user, [role]):
        raise AuditError(f"Only a {role.label.lower()} can {doing}.")


# --- Settings -----------------------------------------------------------------------------


def audit_settings_defaults() -> dict:
    return {
        "omniscient_patterns": list(criteria.OMNISCIENT_PATTERNS),
        "adult_evaluation_patterns": list(criteria.ADULT_EVALUATION_PATTERNS),
        "adult_evaluation_max_age": criteria.ADULT_EVALUATION_MAX_AGE,
        "psychoanalytic_terms": list(criteria.PSYCHOANALYTIC_TERMS),
        "low_intensity_threshold": criteria.LOW_INTENSITY_THRESHOLD,
        "context_words_min": criteria.CONTEXT_WORDS[0],
        "context_words_max": criteria.CONTEXT_WORDS[1],
        "summary_words_min": criteria.SUMMARY_WORDS[0],
        "summary_words_max": criteria.SUMMARY_WORDS[1],
        "duplicate_threshold": criteria.DUPLICATE_THRESHOLD,
        "age_windows": [
            {"key": w.key, "first_age": w.first_age, "last_age": w.last_age}
            for w in criteria.default_windows()
        ],
        "length_max_chars": criteria.LENGTH_MAX_CHARS,
        "guided_min_chars": criteria.GUIDED_LENGTH[0],
        "guided_max_chars": criteria.GUIDED_LENGTH[1],
        "max_repair_attempts": criteria.MAX_REPAIR_ATTEMPTS,
        "enabled_criteria": sorted(criteria.CRITERIA),
        "narrator_labels": dict(criteria.NARRATOR_LABELS),
        "character_names": {},
    }


@transaction.atomic
def audit_settings_create(*, created_by, note: str = "", **fields) -> AuditSettings:
    """A new settings version: the latest one (or the protocol's defaults) with
    ``fields`` changed. Earlier versions stay as they were, for the runs that used them."""
    if created_by is not None:
        _require_role(created_by, Role.ADMIN, "change the audit settings")
    unknown = set(fields) - set(audit_settings_defaults())
    if unknown:
        raise AuditError(f"Unknown audit settings: {', '.join(sorted(unknown))}.")
    latest = AuditSettings.objects.select_for_update().order_by("-number").first()
    values = audit_settings_defaults()
    if latest is not None:
        values = {name: getattr(latest, name) for name in values}
    values.update(fields)
    if values["context_words_min"] > values["context_words_max"]:
        raise AuditError("The context's minimum word count is above its maximum.")
    if values["summary_words_min"] > values["summary_words_max"]:
        raise AuditError("The summary's minimum word count is above its maximum.")
    if not 0 < values["duplicate_threshold"] < 1:
        raise AuditError("The duplication threshold is a cosine strictly between 0 and 1.")
    bad = set(values["enabled_criteria"]) - set(criteria.CRITERIA)
    if bad:
        raise AuditError(f"There is no criterion {sorted(bad)}; the criteria are 1-6.")
    number = (latest.number if latest else 0) + 1
    version = AuditSettings.objects.create(
        number=number, note=note, created_by=created_by, **values
    )
    _event(actor=created_by, action="settings_created", number=number, note=note)
    return version


def audit_settings_current() -> AuditSettings:
    """The latest version; the protocol's defaults become version 1 on first use."""
    return selectors.audit_settings_latest() or audit_settings_create(
        created_by=None, note="The protocol's defaults (seed 000 App. B.6, L.3)"
    )


def repair_provider() -> ProviderConfig | None:
    """The repair model: ``settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER`` when set, else
    ``HEARTBENCH_AUDIT_REPAIR_*`` from the environment (llm/README.md), else none."""
    return configured_provider(REPAIR_PROVIDER_PREFIX)


def classifier_provider() -> ProviderConfig | None:
    """The optional LLM classifier: ``HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER`` / ``_*``."""
    return configured_provider(CLASSIFIER_PROVIDER_PREFIX)


# --- Memory versions ----------------------------------------------------------------------


def _snapshot(memory: Memory) -> dict:
    return {name: getattr(memory, name) for name in VERSIONED_FIELDS}


def _ensure_original_versions(memories) -> None:
    """Version 1 of each memory (its text as the audit found it), where missing."""
    have = set(
        MemoryVersion.objects.filter(memory__in=[m.pk for m in memories]).values_list(
            "memory_id", flat=True
        )
    )
    MemoryVersion.objects.bulk_create(
        MemoryVersion(memory=m, number=1, origin=MemoryVersion.Origin.ORIGINAL, fields=_snapshot(m))
        for m in memories
        if m.pk not in have
    )


def _memory_change(
    *, memory: Memory, changes: dict, origin: str, author=None, case=None, attempt=None, note=""
) -> MemoryVersion:
    """Write ``changes`` to the Memory row and keep the result as its next version.
    Caller holds the memory's row lock."""
    _ensure_original_versions([memory])
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
        fields=_snapshot(memory),
        author=author,
        case=case,
        repair_attempt=attempt,
        note=note,
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
    return _memory_change(
        memory=memory,
        changes={field: f"{current} {text}"},
        origin=MemoryVersion.Origin.DEMO_DEFECT,
        note=note,
    )


# --- The automated audit ------------------------------------------------------------------


@transaction.atomic
def audit_run_start(
    *, created_by, character_keys=(), note: str = "", settings_version=None
) -> AuditRun:
    if created_by is not None:
        _require_role(created_by, Role.ADMIN, "start an audit run")
    running = AuditRun.objects.filter(
        status__in=[AuditRun.Status.PENDING, AuditRun.Status.RUNNING]
    ).first()
    if running is not None:
        raise AuditError(f"{running} is still {running.status}; wait for it to finish.")
    keys = sorted(set(character_keys))
    known = set(Character.objects.filter(key__in=keys).values_list("key", flat=True))
    if set(keys) - known:
        raise AuditError(f"Unknown character(s): {', '.join(sorted(set(keys) - known))}.")
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
    _event(actor=created_by, action="run_started", run=run, settings=version.number)
    return run


def _case_flags(case: MemoryCase, findings, audit_pass: str) -> list[MemoryFlag]:
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
        )
        for f in findings
    ]


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
            _event(actor=None, action="run_finished", run=run, flagged=run.cases.count())
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
    _ensure_original_versions(memories)
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
        flags += _case_flags(case, flagged[case.memory.memory_id], "initial")
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
        from audit.memory_quality.celery_tasks import dispatch_repair_attempt

        for case_id in run.cases.values_list("pk", flat=True):
            dispatch_repair_attempt(case_id)


# --- The repair loop ----------------------------------------------------------------------


def _findings_dicts(flags) -> list[dict]:
    return [
        {"criterion": f.criterion, "field": f.field, "detail": f.detail, "spans": f.spans}
        for f in flags
    ]


def _memory_dict(memory: Memory) -> dict:
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
        memory_data = _memory_dict(case.memory)
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
    _event(actor=None, action="repair_attempt", case=case, number=number, passed=passed)
    if passed:
        _memory_change(
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
        from audit.memory_quality.celery_tasks import dispatch_repair_attempt

        dispatch_repair_attempt(case.pk)
    return attempt


def _escalate(case: MemoryCase, *, note: str) -> None:
    case.status = MemoryCase.Status.REVIEW
    case.escalated = True
    case.repair_note = note
    case.save(update_fields=["status", "escalated", "repair_note", "updated_at"])
    _event(actor=None, action="escalated", case=case, note=note)


# --- Manual review ------------------------------------------------------------------------


@transaction.atomic
def case_review_decide(*, case_id: int, reviewer, decision: str, reason: str) -> MemoryCase:
    _require_role(reviewer, Role.MEMORY_REVIEWER, "confirm or override audit flags")
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
    _event(actor=reviewer, action=f"review_{decision}", case=case, reason=reason)
    return case


@transaction.atomic
def case_senior_edit(
    *, case_id: int, editor, context: str, content_summary: str, content_full: str, note=""
) -> tuple[MemoryCase, list]:
    """The senior expert's edit of a confirmed defect, re-audited at once. Returns the
    case and the re-audit's findings (empty: the memory passed and the case is closed)."""
    _require_role(editor, Role.ARBITRATOR, "edit a memory after the audit")
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
    _memory_change(
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
    MemoryFlag.objects.bulk_create(_case_flags(case, findings, f"senior edit {edits}"))
    if not findings:
        case.status = MemoryCase.Status.REVISED
        case.save(update_fields=["status", "updated_at"])
    _event(
        actor=editor,
        action="senior_edit",
        case=case,
        fields=sorted(changes),
        passed=not findings,
    )
    return case, findings


# --- After the audit: deduplicate, order, sanitize ----------------------------------------


def _normalized_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


@transaction.atomic
def audit_run_finalize(*, run_id: int, actor) -> AuditRun:
    """Accepted memories → deduplicated (identical normalized narratives keep the
    earliest), ordered by event age into each character's timeline, and sanitized
    (gender-neutral narrator labels, no character name). Idempotent."""
    if actor is not None:
        _require_role(actor, Role.ADMIN, "finalize an audit run")
    run = AuditRun.objects.select_for_update().select_related("settings_version").get(pk=run_id)
    if run.finalized_at is not None:
        return run
    if run.status != AuditRun.Status.FINISHED:
        raise AuditError(f"{run} is {run.status}: finalize it once it has finished.")
    open_cases = run.cases.filter(status__in=MemoryCase.OPEN).count()
    if open_cases:
        raise AuditError(f"{open_cases} flagged memory(ies) are still open; resolve them first.")
    version = run.settings_version
    memories = Memory.objects.select_related("character").order_by(
        "character__key", "event_age", "sequence"
    )
    if run.character_keys:
        memories = memories.filter(character__key__in=run.character_keys)
    entries, seen, duplicates, sanitized = [], set(), [], 0
    positions: dict[int, int] = {}
    for memory in memories.select_for_update(of=("self",)):
        digest = (memory.character_id, _normalized_hash(memory.content_full))
        if digest in seen:
            duplicates.append(memory.memory_id)
            continue
        seen.add(digest)
        names = version.character_names.get(memory.character.key, [])
        changes = {}
        for name in MEMORY_TEXT_FIELDS:
            text = getattr(memory, name)
            clean = criteria.sanitize_text(text, names=names, labels=version.narrator_labels)
            if clean != text:
                changes[name] = clean
        if changes:
            _memory_change(
                memory=memory,
                changes=changes,
                origin=MemoryVersion.Origin.SANITIZED,
                author=actor,
                note="Gender-neutral narrator labels; no character name.",
            )
            sanitized += 1
        positions[memory.character_id] = positions.get(memory.character_id, 0) + 1
        entries.append(
            TimelineEntry(
                run=run,
                character_id=memory.character_id,
                memory=memory,
                position=positions[memory.character_id],
            )
        )
    TimelineEntry.objects.bulk_create(entries)
    run.finalized_at = timezone.now()
    run.summary = {
        **run.summary,
        "timeline": len(entries),
        "deduplicated": duplicates,
        "sanitized": sanitized,
    }
    run.save(update_fields=["finalized_at", "summary"])
    _event(actor=actor, action="run_finalized", run=run, duplicates=len(duplicates))
    return run


# --- The optional LLM classifier ------------------------------------------------------


@transaction.atomic
def classifier_run_start(*, run_id: int, criterion: int, actor) -> int:
    """Queue the classifier for one criterion over the run's memories; returns how many
    calls were queued (memories already classified on it are skipped)."""
    _require_role(actor, Role.ADMIN, "run the LLM classifier")
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
    from audit.memory_quality.celery_tasks import dispatch_classification

    for memory_pk in ids:
        dispatch_classification(run.pk, memory_pk, criterion)
    _event(actor=actor, action="classifier_started", run=run, criterion=criterion, n=len(ids))
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
    system, user = repair.classifier_prompt(memory=_memory_dict(memory), criterion=criterion)
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
            _ensure_original_versions([memory])
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
    _event(actor=None, action="classified", run=run, criterion=criterion, verdict=verdict)
    return record
