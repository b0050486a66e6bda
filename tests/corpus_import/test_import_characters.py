"""Characters files (dataset card layout) and the memory storage serialization (App. B.5)."""

import copy

import pytest
from django.utils import timezone

from annotation.corpus.models import Character, Memory, ProfileVersion
from annotation.corpus_import.importing import import_files, import_paths
from annotation.corpus_import.memory_storage import dump_memory_storage
from annotation.corpus_import.problems import ImportRejected
from core.life_stages import life_stage_for_age

from . import as_json, corpus_dump, small_characters

pytestmark = pytest.mark.django_db

PROFILE_KEYS = {
    "name": "construction_label",
    "occupation": "occupation",
    "description": "description",
    "self_value_logic": "self_value_logic",
    "core_patterns": "core_patterns",
}
BIG_FIVE = {
    "O": "openness",
    "C": "conscientiousness",
    "E": "extraversion",
    "A": "agreeableness",
    "N": "neuroticism",
}
# Boundary ages of the eight bins (each shared boundary year belongs to the earlier bin).
AGES = {
    6: "school_age",
    11: "school_age",
    12: "adolescence",
    17: "adolescence",
    18: "early_adult_transition",
    22: "early_adult_transition",
    23: "entering_adult_world",
    28: "entering_adult_world",
    29: "age_30_transition",
    33: "age_30_transition",
    34: "settling_down",
    40: "settling_down",
    41: "midlife_transition",
    45: "midlife_transition",
    46: "entering_midlife",
    50: "entering_midlife",
}


def characters_with_ages() -> list[dict]:
    characters = small_characters(characters=2, memories=len(AGES))
    for character in characters:
        for memory, age in zip(character["episodic_memory_set"], AGES, strict=True):
            memory["timeline"] = f"Stage label ({age} years old)"
    return characters


def assert_memory_matches(memory: Memory, source: dict) -> None:
    label_seq = source["id"].removeprefix(f"MEM_{memory.character.key}_")
    sequence = int(label_seq.rsplit("_", 1)[1])
    assert memory.memory_id == source["id"]
    assert memory.anonymized_id == f"MEM_{memory.character.key}_{sequence:04d}"
    assert memory.sequence == sequence
    assert memory.timeline == source["timeline"]
    for key in (
        "context",
        "content_summary",
        "content_full",
        "triggers",
        "psych_conclusion",
        "behavior_policy",
        "relevance_tags",
    ):
        assert getattr(memory, key) == source[key], key
    assert memory.emotion_signature == source["emotion_signature"]


def test_characters_file_round_trips_every_field():
    characters = characters_with_ages()

    summary = import_files([("characters.json", as_json(characters))])

    assert summary.as_dict()["counts"]["profile_versions"]["created"] == 2
    assert summary.as_dict()["counts"]["memories"]["created"] == 2 * len(AGES)
    for source in characters:
        character = Character.objects.get(key=source["id"])
        (version,) = character.versions.all()
        assert version.number == 1
        for key, field in PROFILE_KEYS.items():
            assert getattr(version, field) == source[key], key
        assert version.big_five == source["big_five"]
        assert version.is_demo_standin is True
        assert version.trait_anchor != "none"
        stored = {m.memory_id: m for m in character.memories.all()}
        assert len(stored) == len(AGES)
        for mem, age in zip(source["episodic_memory_set"], AGES, strict=True):
            memory = stored[mem["id"]]
            assert_memory_matches(memory, mem)
            assert memory.event_age == age
            assert memory.life_stage == AGES[age] == life_stage_for_age(age).key
            assert memory.is_demo_standin is True


def test_big_five_accepts_full_dimension_names():
    (character,) = small_characters(characters=1, memories=1)
    character["big_five"] = {
        "openness": 0.4,
        "Conscientiousness": 0.5,
        "extraversion": 0.6,
        "agreeableness": 0.3,
        "neuroticism": 0.95,
    }
    import_files([("c.json", as_json([character]))])
    assert ProfileVersion.objects.get().big_five == {
        "O": 0.4,
        "C": 0.5,
        "E": 0.6,
        "A": 0.3,
        "N": 0.95,
    }


def test_storage_serialization_round_trips_every_field():
    characters = characters_with_ages()
    characters[0]["episodic_memory_set"][0]["psych_conclusion"] = (
        "First line.\n\nA second paragraph."
    )
    import_files([("characters.json", as_json(characters))])
    before = list(Memory.objects.order_by("memory_id").values())
    text = dump_memory_storage(Memory.objects.order_by("memory_id"))
    Memory.objects.all().delete()

    summary = import_files([("memories.txt", text.encode())])

    assert summary.files == [
        {"name": "memories.txt", "kind": "memory_storage", "records": 2 * len(AGES)}
    ]
    after = list(Memory.objects.order_by("memory_id").values())
    ignore = {"id", "created_at", "source"}
    assert [{k: v for k, v in m.items() if k not in ignore} for m in after] == [
        {k: v for k, v in m.items() if k not in ignore} for m in before
    ]
    # Importing the same text again changes nothing.
    dump = corpus_dump()
    assert not import_files([("memories.txt", text.encode())]).changed
    assert corpus_dump() == dump


AUTHORS_BLOCK = """===MEM_01_0101===
timeline: childhood(age 6)
context: A rainy afternoon in the school library, waiting for a parent.
content_summary: I waited alone in the library and worried nobody would come.
triggers: ['rain', "waiting", 'library']
psych_conclusion: Abandonment fears surface when caregivers are late.
behavior_policy: Arrive early and plan for others' lateness.
emotion_primary: fear
emotion_secondary: loneliness
emotion_intensity: 0.72
relevance_tags: ['family', 'waiting']
---content_full---
The rain drummed on the library window. "Is anyone coming?" I asked.

My stomach hurt until the door opened.

===MEM_01_0102===
timeline: adolescence(age 13)
context: A class trip.
content_summary: I lost the map.
triggers: map, bus, teacher
psych_conclusion: Small failures feel total.
behavior_policy: Check everything twice.
emotion_primary: shame
emotion_secondary:
emotion_intensity: 0.40
relevance_tags: school
---content_full---
I had the map, and then I did not.
"""


def test_the_authors_short_header_storage_takes_the_label_from_the_profile():
    (character,) = small_characters(characters=1, memories=0)  # CHAR_01, anchored on N high
    import_files([("profile.json", as_json([character]))])

    summary = import_files([("_char01_opt_generated.txt", AUTHORS_BLOCK.encode())])

    assert summary.as_dict()["counts"]["memories"]["created"] == 2
    first = Memory.objects.get(memory_id="MEM_CHAR_01_N_HIGH_0101")
    assert first.anonymized_id == "MEM_CHAR_01_0101"
    assert (first.event_age, first.life_stage) == (6, "school_age")
    assert first.triggers == ["rain", "waiting", "library"]
    assert first.emotion_signature == {
        "primary": "fear",
        "secondary": "loneliness",
        "intensity": 0.72,
    }
    assert first.content_full == (
        'The rain drummed on the library window. "Is anyone coming?" I asked.\n\n'
        "My stomach hurt until the door opened."
    )
    second = Memory.objects.get(anonymized_id="MEM_CHAR_01_0102")
    assert second.triggers == ["map", "bus", "teacher"]
    assert second.relevance_tags == ["school"]
    assert second.emotion_secondary == ""
    assert (second.event_age, second.life_stage) == (13, "adolescence")


def test_a_changed_profile_makes_a_new_version_and_never_touches_a_frozen_one():
    characters = small_characters(characters=1, memories=2)
    import_files([("characters.json", as_json(characters))])
    v1 = ProfileVersion.objects.get()
    ProfileVersion.objects.filter(pk=v1.pk).update(frozen_at=timezone.now())
    frozen = ProfileVersion.objects.filter(pk=v1.pk).values().get()

    changed = copy.deepcopy(characters)
    changed[0]["description"] = "A revised description after local revision (App. B.3)."
    with pytest.raises(ImportRejected, match="CHAR_01 profile: v1 frozen on"):
        import_files([("characters.json", as_json(changed))])
    assert ProfileVersion.objects.count() == 1
    summary = import_files([("characters.json", as_json(changed))], as_new_versions=True)

    assert summary.as_dict()["counts"]["profile_versions"] == {
        "created": 1,
        "updated": 0,
        "unchanged": 0,
    }
    assert ProfileVersion.objects.filter(pk=v1.pk).values().get() == frozen
    v2 = ProfileVersion.objects.get(number=2)
    assert v2.character_id == v1.character_id
    assert v2.description == "A revised description after local revision (App. B.3)."
    assert v2.frozen_at is None

    # The same file again matches the latest version: no third version.
    again = import_files([("characters.json", as_json(changed))])
    assert again.as_dict()["counts"]["profile_versions"]["unchanged"] == 1
    assert ProfileVersion.objects.count() == 2


def test_a_changed_memory_is_updated_in_place():
    characters = small_characters(characters=1, memories=3)
    import_files([("characters.json", as_json(characters))])
    memory = characters[0]["episodic_memory_set"][1]
    row = Memory.objects.get(memory_id=memory["id"])
    memory["content_full"] = "A repaired narrative, strictly first person."
    memory["emotion_signature"]["intensity"] = 0.3

    summary = import_files([("characters-v2.json", as_json(characters))])

    assert summary.as_dict()["counts"]["memories"] == {"created": 0, "updated": 1, "unchanged": 2}
    updated = Memory.objects.get(pk=row.pk)
    assert updated.content_full == "A repaired narrative, strictly first person."
    assert updated.emotion_intensity == 0.3
    assert updated.source == "characters-v2.json"
    assert Memory.objects.count() == 3


def test_characters_named_by_release_files_are_created_key_only_then_get_their_profile(release_dir):
    import_files([("scenarios.json", (release_dir / "scenarios.json").read_bytes())])
    import_files([("ground_truth.json", (release_dir / "ground_truth.json").read_bytes())])
    key_only = Character.objects.get(key="CHAR_01")
    assert not key_only.versions.exists()

    import_files([("characters.json", as_json(small_characters(characters=1, memories=1)))])

    assert Character.objects.get(key="CHAR_01").pk == key_only.pk
    assert key_only.versions.count() == 1


def test_storage_memories_of_an_unknown_label_are_rejected_without_a_profile():
    with pytest.raises(ImportRejected) as rejected:
        import_files([("_char01_opt_generated.txt", AUTHORS_BLOCK.encode())])
    problem = rejected.value.errors[0]
    assert (problem.file, problem.record, problem.field) == (
        "_char01_opt_generated.txt",
        "MEM_01_0101 (line 1)",
        "header",
    )
    assert "names no trait label" in problem.message
    assert Memory.objects.count() == 0


def test_a_directory_imports_its_json_and_storage_files_and_lists_the_rest(tmp_path):
    (tmp_path / "characters.json").write_bytes(as_json(small_characters(characters=1, memories=0)))
    (tmp_path / "memories.txt").write_text(AUTHORS_BLOCK)
    (tmp_path / "README.txt").write_text("Notes about this folder.\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    (tmp_path / "drafts").mkdir()

    summary = import_paths([tmp_path])

    assert [f["kind"] for f in summary.files] == ["characters", "memory_storage"]
    assert {s["path"].rsplit("/", 1)[-1]: s["reason"] for s in summary.skipped} == {
        "README.txt": "a text file without ===MEM_…=== memory blocks",
        "drafts": "a subdirectory; name it explicitly to import it",
        "notes.md": "not an importable file (JSON or memory storage text)",
    }
    assert Memory.objects.filter(character__key="CHAR_01").count() == 2


def test_an_unstated_standin_label_keeps_the_stored_one():
    characters = small_characters(characters=1, memories=2)
    for character in characters:
        del character["is_demo_standin"]
    import_files([("characters.json", as_json(characters))])
    assert not ProfileVersion.objects.get().is_demo_standin  # new rows: not a stand-in
    ProfileVersion.objects.update(is_demo_standin=True)
    Memory.objects.update(is_demo_standin=True)
    dump = corpus_dump()

    assert not import_files([("characters.json", as_json(characters))]).changed
    assert corpus_dump() == dump

    characters[0]["is_demo_standin"] = False  # stated: it counts
    summary = import_files([("characters.json", as_json(characters))])
    assert summary.as_dict()["counts"]["profile_versions"]["created"] == 1
    assert summary.as_dict()["counts"]["memories"]["updated"] == 2
    assert not ProfileVersion.objects.get(number=2).is_demo_standin
