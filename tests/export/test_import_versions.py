"""Importing MCQs records a McqItemVersion (origin import) for new and changed items;
a re-import of unchanged data records none."""

import json

import pytest

from adjudication.mcq.models import McqItem, McqItemVersion
from annotation.corpus_import.importing import import_files
from tests.corpus_import import as_json, release_files

pytestmark = pytest.mark.django_db


def test_import_snapshots_new_items_and_reimport_adds_none(imported_release, release_dir):
    assert McqItemVersion.objects.count() == 673
    assert set(McqItemVersion.objects.values_list("origin", flat=True)) == {"import"}
    item = McqItem.objects.get(question_id="Q_CHAR_01_SCN_ENTERING_ADULT_WORLD_7")
    (snapshot,) = item.versions.all()
    source = next(
        q
        for q in json.loads((release_dir / "mcq.json").read_text())["questions"]
        if q["question_id"] == item.question_id
    )
    assert snapshot.number == 1 and snapshot.correct_answer == source["correct_answer"]
    assert [
        (o["label"], o["content"], o["is_correct"], o["is_generated"], o["source_character"])
        for o in snapshot.options
    ] == [
        (
            o["label"],
            o["content"],
            o["is_correct"],
            o.get("is_generated", False),
            o["source_character"],
        )
        for o in source["options"]
    ]

    import_files(release_files(release_dir, ("scenarios.json", "mcq.json")))
    assert McqItemVersion.objects.count() == 673


def test_a_changed_item_gets_the_next_version_and_keeps_the_first(imported_release, release_dir):
    doc = json.loads((release_dir / "mcq.json").read_text())
    question = doc["questions"][0]
    question["options"][0]["content"] += " (revised)"
    McqItemVersion.objects.filter(item__question_id=question["question_id"]).delete()
    import_files([("mcq.json", as_json(doc))])
    item = McqItem.objects.get(question_id=question["question_id"])
    assert item.version == 2
    versions = list(item.versions.order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].options[0]["content"] + " (revised)" == versions[1].options[0]["content"]
    assert McqItemVersion.objects.count() == 674


def test_a_revised_item_leaves_the_set_and_returns_with_its_new_version(imported_release):
    from adjudication.export.services import build_export
    from adjudication.mcq.versions import revise_item
    from tests.factories import UserFactory

    item = McqItem.objects.get(question_id="Q_CHAR_01_SCN_EARLY_ADULT_TRANSITION_6")
    revise_item(
        item,
        user=UserFactory(username="export-reviewer"),
        origin=McqItemVersion.Origin.REVIEW,
        note="Distractor A replaced.",
        options=[
            {"label": "A", "content": "I walk away and call my mother instead."},
            *({"label": label} for label in "BCD"),
        ],
    )
    bundle = build_export()
    assert item.question_id not in bundle.manifest["item_versions"]
    assert bundle.manifest["counts"]["excluded_items"] == {"screening": 1}
    assert item.question_id.encode() not in bundle.files["release/mcq.json"]

    McqItem.objects.filter(pk=item.pk).update(status=McqItem.Status.FINAL)
    bundle = build_export()
    assert bundle.manifest["item_versions"][item.question_id] == 2
    construction = json.loads(bundle.files["construction/items.json"])["questions"]
    exported = next(q for q in construction if q["question_id"] == item.question_id)
    assert [(v["number"], v["origin"], v["created_by"]) for v in exported["versions"]] == [
        (1, "import", None),
        (2, "review", "export-reviewer"),
    ]
    assert exported["versions"][0]["options"][0]["content"].startswith("I choose to lend him")
    assert exported["options"][0]["content"] == "I walk away and call my mother instead."
    mcq = json.loads(bundle.files["release/mcq.json"])["questions"]
    assert next(q for q in mcq if q["question_id"] == item.question_id)["options"][0][
        "content"
    ] == ("I walk away and call my mother instead.")
