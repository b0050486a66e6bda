"""Memory text is the bulk of an export at the paper's scale, so the zip must not repeat
it: in the release folder each memory's text is in ``characters.json`` only, and
``characters.jsonl`` names the memories by id. The model-facing folder keeps its own
copy under anonymized ids (App. E: a harness gets that folder alone)."""

import io
import json
import zipfile

import pytest

from adjudication.export.services import FOLDER, build_export
from annotation.corpus.models import Memory

pytestmark = pytest.mark.django_db

MODEL_FACING_MEMORY_FILES = {
    "model_facing/memories.json",
    "model_facing/memories.jsonl",
    "model_facing/memories.parquet",
}


def _members(zip_bytes: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
        return {name.removeprefix(f"{FOLDER}/"): archive.read(name) for name in archive.namelist()}


def _holders(members: dict[str, bytes], text: str) -> set[str]:
    """The members whose bytes hold ``text``, raw (CSV, Parquet) or JSON-escaped."""
    needles = {text.encode(), json.dumps(text, ensure_ascii=False)[1:-1].encode()}
    return {path for path, body in members.items() if any(n in body for n in needles)}


def test_each_memory_text_is_written_once_outside_the_model_facing_folder(imported_release):
    members = _members(build_export().zip_bytes())
    released = {
        m["id"]
        for c in json.loads(members["release/characters.json"])["characters"]
        for m in c["episodic_memory_set"]
    }
    memories = list(Memory.objects.filter(memory_id__in=released))
    assert len(memories) == len(released) == 33  # 11 characters x 3 memories
    texts = [m.content_full for m in memories]
    assert len(set(texts)) == len(texts)  # distinct, so a scan tells them apart
    model_facing = {
        m["memory_id"] for m in json.loads(members["model_facing/memories.json"])["memories"]
    }
    for memory in memories:
        holders = _holders(members, memory.content_full)
        outside = holders - MODEL_FACING_MEMORY_FILES
        assert outside == {"release/characters.json"}, memory.memory_id
        if memory.anonymized_id in model_facing:
            assert {"model_facing/memories.json", "model_facing/memories.jsonl"} <= holders
        else:
            assert holders == {"release/characters.json"}, memory.memory_id


def test_characters_jsonl_names_memories_that_resolve_in_characters_json(imported_release):
    files = build_export().files
    full = json.loads(files["release/characters.json"])["characters"]
    lines = [json.loads(line) for line in files["release/characters.jsonl"].decode().splitlines()]
    assert [c["id"] for c in lines] == [c["id"] for c in full]
    by_id = {m["id"]: m for c in full for m in c["episodic_memory_set"]}
    for line, record in zip(lines, full, strict=True):
        assert "episodic_memory_set" not in line
        # Every id resolves, in the same order, to a memory of the same character.
        assert line["memory_ids"] == [m["id"] for m in record["episodic_memory_set"]]
        assert all(i in by_id for i in line["memory_ids"])
        # Every other field is kept, in the same order.
        rest = {k: v for k, v in record.items() if k != "episodic_memory_set"}
        assert list(line) == [*rest, "memory_ids"]
        assert {k: line[k] for k in rest} == rest
    assert sum(len(c["memory_ids"]) for c in lines) == len(by_id) == 33
