"""Tests of the corpus app. Shared helpers for the import tests live here."""

import json
from pathlib import Path

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import ActivationSet, Character, Memory, ProfileVersion, Scenario
from annotation.corpus_import.synthetic import synthetic_characters

CORPUS_MODELS = (
    Character,
    ProfileVersion,
    Memory,
    Scenario,
    ActivationSet,
    ReferenceResponse,
    McqItem,
    McqOption,
)
RELEASE_FILES = (
    "scenarios.json",
    "ground_truth.json",
    "mcq.json",
    "activated_memories_step1.json",
    "activated_memories_step2.json",
)


def corpus_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in CORPUS_MODELS}


def corpus_dump() -> dict[str, list[dict]]:
    """Every row of every corpus table, every column, in primary-key order."""
    return {m._meta.label: list(m.objects.order_by("pk").values()) for m in CORPUS_MODELS}


def release_files(release_dir: Path, names=RELEASE_FILES) -> list[tuple[str, bytes]]:
    return [(name, (release_dir / name).read_bytes()) for name in names]


def small_characters(characters: int = 2, memories: int = 4, **kwargs) -> list[dict]:
    return synthetic_characters(
        characters=characters, memories_per_character=memories, content_chars=300, **kwargs
    )


def as_json(doc) -> bytes:
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()
