"""What the manifest and the exported memories owe the rest of the pipeline (issue #18):
only the audited corpus is exported (a duplicate the memory audit left out appears in
no release or model-facing file), the manifest lists the recorded protocol deviations,
the key distribution per option label and the characters no finalized audit covered,
and a hand-written distractor is counted as such, never as a character with an empty
name."""

import io
import json

import pytest
from django.core.management import call_command

from adjudication.export.services import MANIFEST, build_export
from adjudication.mcq.models import McqOption
from core.deviations import record_deviation
from tests.factories import UserFactory
from tests.pipeline_ready import audit_leaving_out_a_copy

from .conftest import SOURCES, TARGET, file_text

pytestmark = pytest.mark.django_db

MEMORY_FILES = (
    "release/characters.json",
    "release/characters.jsonl",
    "model_facing/memories.json",
    "model_facing/memories.jsonl",
    "model_facing/memories.parquet",
)


def test_a_duplicate_the_audit_left_out_is_not_exported(secret_corpus):
    original = secret_corpus["memory"]
    character = secret_corpus["item"].character
    copy = audit_leaving_out_a_copy(character, original=original)

    bundle = build_export()

    for path in MEMORY_FILES:
        text = file_text(path, bundle.files[path])
        assert copy.memory_id not in text and copy.anonymized_id not in text, path
    assert original.anonymized_id in bundle.files["model_facing/memories.json"].decode()
    assert original.memory_id in bundle.files["release/characters.json"].decode()
    counts = bundle.manifest["counts"]
    assert counts["memories"] == counts["model_facing_memories"] == 1
    # The target was audited; the distractors' authors never were.
    assert bundle.manifest["characters_without_finalized_audit"] == sorted(SOURCES)


def test_without_an_audit_every_stored_memory_is_exported_and_listed(secret_corpus):
    bundle = build_export()
    assert bundle.manifest["characters_without_finalized_audit"] == sorted([TARGET, *SOURCES])
    assert bundle.manifest["counts"]["memories"] == 1


def test_the_manifest_lists_deviations_and_the_key_distribution(secret_corpus):
    assert build_export().manifest["protocol_deviations"] == []
    admin = UserFactory(username="manifest-admin")
    record_deviation(
        stage="generation",
        kind="gate_override",
        subject=f"{TARGET} × SCN_SCHOOL_AGE_61",
        rule="Generation uses a scenario that completed review (App. C.2)",
        reason="Pilot run",
        by=admin,
    )

    first = build_export()

    [row] = first.manifest["protocol_deviations"]
    assert row["kind"] == "gate_override" and row["reason"] == "Pilot run"
    assert row["subject"] == f"{TARGET} × SCN_SCHOOL_AGE_61"
    assert row["recorded_by"] == "manifest-admin"
    assert first.manifest["key_distribution"] == {"A": 0, "B": 1, "C": 0, "D": 0}
    written = json.loads(first.files[MANIFEST])
    assert written["protocol_deviations"] == first.manifest["protocol_deviations"]
    assert build_export().files[MANIFEST] == first.files[MANIFEST]  # still byte-identical


def test_a_hand_written_distractor_has_no_empty_character_name(secret_corpus, tmp_path):
    option = McqOption.objects.get(item=secret_corpus["item"], label="C")
    option.source_character = ""  # as item review's "write a distractor" stores it
    option.save()

    counts = build_export().manifest["counts"]

    assert counts["characters_without_profile"] == []
    assert counts["hand_written_options"] == 1
    out = io.StringIO()
    call_command("write_final_set", str(tmp_path), stdout=out)
    assert "No profile" not in out.getvalue()
