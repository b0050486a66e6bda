"""Round trip (issue #8): the release's mcq.json, ground_truth.json and scenarios.json,
imported and exported again, come back field by field — and byte for byte, except the
three dataset_meta lines of mcq.json, which name this export instead of the authors'
assembly script."""

import json

import pytest

from adjudication.export.services import build_export
from adjudication.mcq.models import McqItemVersion
from annotation.corpus_import.importing import import_files
from tests.corpus_import import corpus_dump

pytestmark = pytest.mark.django_db


def _release(release_dir, name):
    return json.loads((release_dir / name).read_text())


def test_questions_options_and_keys_come_back_field_by_field(imported_release, release_dir):
    files = build_export().files
    ours = json.loads(files["release/mcq.json"])
    theirs = _release(release_dir, "mcq.json")
    assert [q["question_id"] for q in ours["questions"]] == [
        q["question_id"] for q in theirs["questions"]
    ]
    for mine, source in zip(ours["questions"], theirs["questions"], strict=True):
        assert list(mine) == list(source)
        for key in ("character_id", "scenario_id", "stage", "correct_answer"):
            assert mine[key] == source[key], (source["question_id"], key)
        for o_mine, o_source in zip(mine["options"], source["options"], strict=True):
            # Same keys in the same order: is_generated only where the release states it.
            assert list(o_mine) == list(o_source), source["question_id"]
            assert o_mine == o_source
    assert ours["dataset_meta"]["total_questions"] == len(theirs["questions"]) == 673
    generated = [o for q in ours["questions"] for o in q["options"] if "is_generated" in o]
    assert len(generated) == 54 and all(o["is_generated"] is True for o in generated)

    jsonl = [json.loads(line) for line in files["release/mcq.jsonl"].decode().splitlines()]
    assert jsonl == theirs["questions"]


def test_references_and_scenarios_come_back_field_by_field(imported_release, release_dir):
    files = build_export().files
    pairs = json.loads(files["release/ground_truth.json"])["pairs"]
    assert pairs == _release(release_dir, "ground_truth.json")["pairs"]
    scenarios = json.loads(files["release/scenarios.json"])
    theirs = _release(release_dir, "scenarios.json")
    assert list(scenarios["scenarios"]) == list(theirs["scenarios"])
    assert scenarios == theirs
    # The release scenario without action_required exports without it, not as "".
    missing = [
        s["id"]
        for group in scenarios["scenarios"].values()
        for s in group
        if "action_required" not in s["trigger_event"]
    ]
    assert len(missing) == 1


def test_the_release_files_come_back_byte_for_byte_but_for_dataset_meta(
    imported_release, release_dir
):
    files = build_export().files
    for name in ("ground_truth.json", "scenarios.json"):
        assert files[f"release/{name}"] == (release_dir / name).read_bytes(), name
    ours = files["release/mcq.json"].decode().splitlines()
    theirs = (release_dir / "mcq.json").read_text().splitlines()
    differing = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    assert [ours[i].split(":")[0].strip() for i in differing] == [
        '"version"',
        '"description"',
        '"source_gt"',
    ]
    assert differing == [2, 3, 4]  # inside dataset_meta, nothing else


def test_reimporting_the_export_changes_nothing(imported_release, tmp_path):
    bundle = build_export()
    before = corpus_dump()
    versions = McqItemVersion.objects.count()
    names = ("characters.json", "scenarios.json", "ground_truth.json", "mcq.json")
    summary = import_files([(n, bundle.files[f"release/{n}"]) for n in names])
    counts = summary.as_dict()["counts"]
    for kind in ("profile_versions", "memories", "scenarios", "references", "mcq_items"):
        assert counts[kind].get("created", 0) == 0, kind
        assert counts[kind].get("updated", 0) == 0, kind
    assert counts["mcq_items"]["unchanged"] == 673
    assert counts["profile_versions"]["unchanged"] == 11
    assert McqItemVersion.objects.count() == versions
    after = corpus_dump()
    # The import stamps ``source`` only on rows it writes; none was written.
    assert after == before
