"""Exporting twice gives byte-identical files and archives; the manifest's counts and
SHA-256 sums agree with the files (checked with hashlib on the written files)."""

import hashlib
import io
import json
import zipfile
from collections import Counter

import pytest
from django.core.management import call_command

from adjudication.export.services import MANIFEST, build_export, verify_manifest
from adjudication.mcq.models import McqItem

pytestmark = pytest.mark.django_db


def test_two_exports_are_byte_identical(imported_release):
    first = build_export()
    second = build_export()
    assert first.files.keys() == second.files.keys()
    for path in first.files:
        assert first.files[path] == second.files[path], path
    assert first.zip_bytes() == second.zip_bytes()
    # Same bytes after an unrelated write elsewhere in the database (no clock, no
    # query-order dependence): touching an item's row re-orders nothing.
    item = McqItem.objects.order_by("?").first()
    item.save()
    assert build_export().zip_bytes() == first.zip_bytes()


def test_an_edit_changes_the_bytes_and_the_manifest_says_so(imported_release):
    before = build_export()
    option = McqItem.objects.get(question_id="Q_CHAR_01_SCN_EARLY_ADULT_TRANSITION_6").options.get(
        label="A"
    )
    option.content += " Then I leave."
    option.save()
    after = build_export()
    changed = {p for p in before.files if before.files[p] != after.files[p]}
    assert "release/mcq.json" in changed and "model_facing/items.json" in changed
    assert "release/scenarios.json" not in changed and "model_facing/answers.json" not in changed
    assert MANIFEST in changed


def test_manifest_counts_versions_and_hashes_match_the_written_files(
    imported_release, release_dir, tmp_path
):
    call_command("write_final_set", str(tmp_path), "--zip", stdout=io.StringIO())
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    written = {
        str(p.relative_to(tmp_path)): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and p.suffix != ".zip"
    }
    assert set(manifest["files"]) == set(written) - {MANIFEST}
    for path, entry in manifest["files"].items():
        assert entry["sha256"] == hashlib.sha256(written[path]).hexdigest(), path
        assert entry["bytes"] == len(written[path])
    assert verify_manifest(written) == []

    release = json.loads((release_dir / "mcq.json").read_text())["questions"]
    counts = manifest["counts"]
    assert counts["final_items"] == len(release) == 673
    assert counts["options"] == 4 * 673
    assert counts["generated_options"] == 54
    assert counts["keys"] == dict(sorted(Counter(q["correct_answer"] for q in release).items()))
    assert counts["scenarios"] == 64 and counts["references"] == 673
    assert counts["characters"] == 11 and counts["characters_without_profile"] == []
    assert manifest["item_versions"] == {q["question_id"]: 1 for q in release}
    assert manifest["platform_version"]
    assert manifest["chain_sections"] == sorted(manifest["chain_sections"])
    assert {"arbitration", "candidates", "comparison"} <= set(manifest["chain_sections"])

    # The zip holds the same bytes as the directory.
    with zipfile.ZipFile(tmp_path / "heartbench-final-set.zip") as archive:
        zipped = {
            n.removeprefix("heartbench-final-set/"): archive.read(n) for n in archive.namelist()
        }
    assert zipped == written


def test_a_tampered_file_is_caught_by_the_manifest(imported_release):
    files = dict(build_export().files)
    files["model_facing/answers.csv"] = files["model_facing/answers.csv"].replace(b",A", b",B", 1)
    assert verify_manifest(files) == ["model_facing/answers.csv"]
