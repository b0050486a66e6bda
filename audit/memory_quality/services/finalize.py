"""After the audit: accepted memories deduplicated, ordered into each character's timeline
and sanitized (gender-neutral narrator labels, no character name)."""

import hashlib

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Memory
from audit.memory_quality import criteria
from audit.memory_quality.models import (
    MEMORY_TEXT_FIELDS,
    AuditError,
    AuditRun,
    MemoryCase,
    MemoryVersion,
    TimelineEntry,
)
from audit.memory_quality.services.records import log_event, memory_change, require_role
from core.plurals import agree, counted
from core.roles import Role


def _normalized_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


@transaction.atomic
def audit_run_finalize(*, run_id: int, actor) -> AuditRun:
    """Accepted memories → deduplicated (identical normalized narratives keep the
    earliest), ordered by event age into each character's timeline, and sanitized
    (gender-neutral narrator labels, no character name). Idempotent."""
    if actor is not None:
        require_role(actor, Role.ADMIN, "finalize an audit run")
    run = AuditRun.objects.select_for_update().select_related("settings_version").get(pk=run_id)
    if run.finalized_at is not None:
        return run
    if run.status != AuditRun.Status.FINISHED:
        raise AuditError(f"{run} is {run.status}: finalize it once it has finished.")
    open_cases = run.cases.filter(status__in=MemoryCase.OPEN).count()
    if open_cases:
        raise AuditError(
            f"{counted(open_cases, 'flagged memory', 'flagged memories')} "
            f"{agree(open_cases, 'is', 'are')} still open; resolve them first."
        )
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
            memory_change(
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
    log_event(actor=actor, action="run_finalized", run=run, duplicates=len(duplicates))
    return run
