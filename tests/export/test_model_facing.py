"""The model-facing files carry only what an evaluated model may see (seed 000 App. E):
character id and occupation, the scenario, the options in order, memories projected to
content_full under anonymized ids with timeline labels. No profile field, no key, no
provenance, no psychological annotation; the keys sit in the answers file only."""

import json
import re

import pytest

from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from annotation.corpus.models import Memory, ProfileVersion

from .conftest import (
    CONTENT_FULL,
    MEMORY_SECRETS,
    OCCUPATION,
    PROFILE_SECRETS,
    SOURCES,
    TARGET,
    file_text,
)

pytestmark = pytest.mark.django_db

MODEL_FACING = (
    "model_facing/items.json",
    "model_facing/items.jsonl",
    "model_facing/items.csv",
    "model_facing/memories.json",
    "model_facing/memories.jsonl",
    "model_facing/items.parquet",
    "model_facing/memories.parquet",
)
PROVENANCE_WORDS = (
    "is_correct",
    "correct_answer",
    "source_character",
    "source_reference",
    "is_generated",
    "construction_label",
    "self_value_logic",
    "core_patterns",
    "big_five",
    "psych_conclusion",
    "behavior_policy",
    "emotion_signature",
    "relevance_tags",
    "content_summary",
    "triggers",
)


def _texts(files):
    return {path: file_text(path, files[path]) for path in MODEL_FACING}


def test_no_profile_value_annotation_key_or_provenance_in_model_facing_files(secret_corpus):
    files = build_export().files
    texts = _texts(files)
    secrets = {
        **{k: str(v) for k, v in PROFILE_SECRETS.items()},
        **{f"memory {k}": str(v) for k, v in MEMORY_SECRETS.items()},
        "full memory id (trait label)": secret_corpus["memory"].memory_id,
        "scenario category": "Zqx category",
        "reference source": "zqx-reference-source",
        "reference summary": "Zqx reference summary",
        **{f"distractor author {k}": k for k in SOURCES},
    }
    for path, text in texts.items():
        for what, value in secrets.items():
            assert value not in text, f"{what} ({value!r}) leaks into {path}"
        for word in PROVENANCE_WORDS:
            assert word not in text, f"{word} appears in {path}"
    # What a model may see is there.
    items = json.loads(files["model_facing/items.json"])["questions"]
    (question,) = items
    assert question["character"] == {"character_id": TARGET, "occupation": OCCUPATION}
    assert [o["label"] for o in question["options"]] == ["A", "B", "C", "D"]
    assert all(set(o) == {"label", "content"} for o in question["options"])
    assert set(question["scenario"]) == {
        "scenario_id",
        "stage",
        "age",
        "name",
        "description_for_agent",
        "setting",
        "context_text",
        "trigger_event",
    }
    (memory,) = json.loads(files["model_facing/memories.json"])["memories"]
    assert memory == {
        "memory_id": f"MEM_{TARGET}_0007",
        "character_id": TARGET,
        "timeline": secret_corpus["memory"].timeline,
        "event_age": secret_corpus["memory"].event_age,
        "content_full": CONTENT_FULL,
    }
    # The key is in the answers file, and only there.
    answers = json.loads(files["model_facing/answers.json"])["answers"]
    assert answers == [{"question_id": secret_corpus["item"].question_id, "correct_answer": "B"}]


def test_the_construction_variant_keeps_what_the_model_facing_one_drops(secret_corpus):
    files = build_export().files
    (question,) = json.loads(files["construction/items.json"])["questions"]
    assert question["correct_answer"] == "B"
    assert [o["source_character"] for o in question["options"]] == [
        SOURCES[0],
        TARGET,
        SOURCES[1],
        SOURCES[2],
    ]
    assert [o["is_generated"] for o in question["options"]] == [False, False, True, False]
    assert question["reference"]["source"] == "zqx-reference-source"
    assert question["profile_version"]["number"] == 1
    characters = json.loads(files["release/characters.json"])["characters"]
    target = next(c for c in characters if c["id"] == TARGET)
    assert target["name"] == PROFILE_SECRETS["construction_label"]
    assert target["big_five"]["O"] == PROFILE_SECRETS["openness"]
    assert (
        target["episodic_memory_set"][0]["psych_conclusion"] == MEMORY_SECRETS["psych_conclusion"]
    )


def test_release_items_keep_every_other_characters_key_out_of_each_record(
    imported_release,
):
    """On the whole release: a model-facing record names its own character only, so no
    distractor's author can be read off it; no key letter is attached to an item; and
    no profile value of any stand-in profile appears anywhere."""
    files = build_export().files
    texts = _texts(files)
    for line in files["model_facing/items.jsonl"].decode().splitlines():
        record = json.loads(line)
        own = record["character"]["character_id"]
        assert set(re.findall(r"CHAR_\d{2}", line)) == {own}, record["question_id"]
        assert set(record) == {"question_id", "character", "scenario", "options"}
    for path, text in texts.items():
        for word in PROVENANCE_WORDS:
            assert word not in text, f"{word} appears in {path}"
        for version in ProfileVersion.objects.all():
            for value in (version.construction_label, version.description, *version.core_patterns):
                assert value not in text, f"{version} profile text leaks into {path}"
        for memory in Memory.objects.all():
            assert memory.memory_id not in text, path
            assert memory.psych_conclusion not in text and memory.context not in text, path
    answers = json.loads(files["model_facing/answers.json"])["answers"]
    keys = dict(McqItem.objects.values_list("question_id", "correct_answer"))
    assert {a["question_id"]: a["correct_answer"] for a in answers} == keys


def test_items_not_in_the_final_set_are_in_no_file(secret_corpus):
    bundle = build_export()
    for status, item in secret_corpus["others"].items():
        for path, body in bundle.files.items():
            assert item.question_id.encode() not in body, f"{status} item in {path}"
            assert item.scenario.scenario_id.encode() not in body, f"{status} scenario in {path}"
    counts = bundle.manifest["counts"]
    assert counts["final_items"] == 1
    assert counts["excluded_items"] == {s: 1 for s in sorted(secret_corpus["others"])}
    assert list(bundle.manifest["item_versions"]) == [secret_corpus["item"].question_id]
