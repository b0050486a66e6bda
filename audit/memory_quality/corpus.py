"""The audited corpus: the memories every later stage reads (App. B.6's last step).

A character whose memories went through an audit run that was finalized reads the
run's timeline: accepted memories, deduplicated, chronological, sanitized. The latest
finalized run that covered the character wins. A character no finalized run covered
(a corpus imported already audited, or not audited at all) reads its memories as
stored; generation refuses such a character unless an admin overrides the gate, and
the export manifest lists it as a protocol deviation.
"""

from collections.abc import Iterable

from django.db.models import QuerySet

from annotation.corpus.models import Character, Memory
from audit.memory_quality.models import AuditRun, TimelineEntry


def finalized_runs_by_character(character_ids: Iterable[int]) -> dict[int, int]:
    """character id → the id of the latest finalized audit run that covered it.

    Two queries, whatever the number of characters."""
    ids = set(character_ids)
    if not ids:
        return {}
    keys = dict(Character.objects.filter(pk__in=ids).values_list("key", "pk"))
    runs = AuditRun.objects.filter(finalized_at__isnull=False).order_by("-finalized_at", "-pk")
    found: dict[int, int] = {}
    for run_id, covered in runs.values_list("pk", "character_keys"):
        for key, pk in keys.items():
            if pk not in found and (not covered or key in covered):
                found[pk] = run_id
        if len(found) == len(keys):
            break
    return found


def audit_finalized(character_id: int) -> bool:
    return character_id in finalized_runs_by_character([character_id])


def audited_memories(character_id: int) -> QuerySet[Memory]:
    """The character's audited memories in timeline order (event age, then sequence)."""
    run_id = finalized_runs_by_character([character_id]).get(character_id)
    memories = Memory.objects.filter(character_id=character_id)
    if run_id is not None:
        kept = TimelineEntry.objects.filter(run_id=run_id, character_id=character_id)
        memories = memories.filter(pk__in=kept.values("memory_id"))
    return memories.order_by("event_age", "sequence")


def audited_memory_ids(character_ids: Iterable[int]) -> dict[int, set[int] | None]:
    """character id → the primary keys of its audited memories, or None where no
    finalized audit covered it (its stored memories stand). Two queries plus one."""
    ids = set(character_ids)
    runs = finalized_runs_by_character(ids)
    kept: dict[int, set[int] | None] = {pk: None for pk in ids}
    for character_id in runs:
        kept[character_id] = set()
    rows = TimelineEntry.objects.filter(
        run_id__in=set(runs.values()), character_id__in=list(runs)
    ).values_list("run_id", "character_id", "memory_id")
    for run_id, character_id, memory_id in rows:
        if runs[character_id] == run_id:
            kept[character_id].add(memory_id)
    return kept
