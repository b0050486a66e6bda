"""The plain reads of the audited corpus a generation worker makes give the rows the ORM
reads give: the same memories (the finalized audit's timeline, the latest run covering
the character winning), the same columns, in timeline order."""

import pytest
from django.utils import timezone

from annotation.corpus.models import Memory
from audit.memory_quality.corpus import audited_memories, audited_memory_rows, memory_rows
from audit.memory_quality.models import AuditRun, TimelineEntry
from tests.factories import CharacterFactory, MemoryFactory
from tests.pipeline_ready import memories_audited

FIELDS = ("memory_id", "anonymized_id", "timeline", "content_summary", "emotion_intensity")


def _orm(character, **filters):
    return list(
        audited_memories(character.pk, key=character.key)
        .filter(**filters)
        .values_list(*FIELDS, named=True)
    )


def _plain(character, **kwargs):
    return audited_memory_rows(character.pk, key=character.key, fields=FIELDS, **kwargs)


def _character(key):
    character = CharacterFactory(key=key)
    # Out of order on purpose: the reads order by event age, then sequence.
    for age, sequence in [(12, 1), (7, 4), (7, 2), (30, 3)]:
        MemoryFactory(character=character, event_age=age, sequence=sequence, emotion_intensity=0.25)
    return character


@pytest.mark.django_db
def test_an_unaudited_character_reads_its_stored_memories_in_timeline_order():
    character = _character("CHAR_01")
    rows = _plain(character)
    assert rows == _orm(character)
    assert [r.memory_id[-4:] for r in rows] == ["0002", "0004", "0001", "0003"]
    assert rows[0].emotion_intensity == 0.25 and rows[0]._fields == FIELDS
    assert _plain(character, max_event_age=12) == _orm(character, event_age__lte=12)
    wanted = [rows[3].memory_id, rows[0].memory_id, "MEM_NOT_THERE"]
    assert _plain(character, memory_ids=wanted) == _orm(character, memory_id__in=wanted)
    assert _plain(character, memory_ids=[]) == []


@pytest.mark.django_db
def test_the_latest_finalized_audit_covering_the_character_decides():
    character, other = _character("CHAR_01"), _character("CHAR_02")
    first = memories_audited(character, other)
    # A later finalized run over CHAR_01 alone leaves its age-30 memory out; a run
    # that is not finalized and a later run over another character change nothing.
    later = AuditRun.objects.create(
        settings_version=first.settings_version,
        character_keys=["CHAR_01"],
        finalized_at=timezone.now(),
    )
    kept = character.memories.exclude(event_age=30).order_by("event_age", "sequence")
    TimelineEntry.objects.bulk_create(
        TimelineEntry(run=later, character=character, memory=m, position=i)
        for i, m in enumerate(kept, start=1)
    )
    AuditRun.objects.create(settings_version=first.settings_version, character_keys=["CHAR_01"])
    AuditRun.objects.create(
        settings_version=first.settings_version,
        character_keys=["CHAR_02"],
        finalized_at=timezone.now(),
    )

    rows = _plain(character)
    assert rows == _orm(character) and len(rows) == 3
    assert all(not r.timeline.endswith("(age 30)") for r in rows)
    assert _plain(character, max_event_age=7) == _orm(character, event_age__lte=7)
    # CHAR_02's latest finalized run covers it but wrote no timeline: nothing is kept,
    # in the ORM read as in the plain one.
    assert _plain(other) == _orm(other) == []


@pytest.mark.django_db
def test_memories_by_id_are_read_across_characters():
    character, other = _character("CHAR_01"), _character("CHAR_02")
    ids = [m.memory_id for m in Memory.objects.order_by("pk")][1:6] + ["MEM_NOT_THERE"]
    expected = Memory.objects.filter(memory_id__in=ids).values_list(*FIELDS, named=True)
    assert sorted(memory_rows(ids, fields=FIELDS)) == sorted(expected)
    assert memory_rows([], fields=FIELDS) == []
    assert {r.memory_id[:11] for r in memory_rows(ids, fields=FIELDS)} == {
        f"MEM_{character.key}",
        f"MEM_{other.key}",
    }


@pytest.mark.django_db
def test_a_column_that_needs_conversion_is_refused():
    character = _character("CHAR_01")
    with pytest.raises(ValueError, match="converter"):
        audited_memory_rows(character.pk, key=character.key, fields=("memory_id", "triggers"))
