"""The public HEART-Bench release imports as a whole, and importing it again changes nothing."""

import json

import pytest

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from annotation.corpus.models import ActivationSet, Character, ProfileVersion, Scenario
from annotation.corpus_import.importing import import_files, import_paths

from . import corpus_counts, corpus_dump, release_files

pytestmark = pytest.mark.django_db


def test_the_release_folder_imports_as_a_whole(release_dir):
    summary = import_paths([release_dir])

    assert Scenario.objects.count() == 64
    assert ReferenceResponse.objects.count() == 673
    assert McqItem.objects.count() == 673
    assert McqOption.objects.count() == 4 * 673
    # 869 screening lists, of which 165 name 15 draft scenarios the release dropped.
    assert ActivationSet.objects.filter(step=1).count() == 704
    assert ActivationSet.objects.filter(step=2).count() == 704
    # Characters the release names are created without a profile.
    assert Character.objects.count() == 11
    assert ProfileVersion.objects.count() == 0

    counts = summary.as_dict()["counts"]
    assert counts["scenarios"] == {"created": 64, "updated": 0, "unchanged": 0}
    assert counts["references"]["created"] == 673
    assert counts["mcq_items"]["created"] == 673
    assert counts["activation_sets"]["created"] == 1408
    kinds = {f["name"].rsplit("/", 1)[-1]: f["kind"] for f in summary.files}
    assert kinds == {
        "scenarios.json": "scenarios",
        "ground_truth.json": "references",
        "mcq.json": "mcq",
        "activated_memories_step1.json": "activations_step1",
        "activated_memories_step2.json": "activations_step2",
    }
    skipped = {s["path"].rsplit("/", 1)[-1] for s in summary.skipped}
    assert skipped == {"SOURCE.md", "history"}
    assert any("left out 165 activation lists" in n for n in summary.notices)
    json.dumps(summary.as_dict())  # JSON-serializable as promised


def test_release_fields_land_where_the_schema_says(release_dir):
    import_paths([release_dir])
    raw = json.loads((release_dir / "scenarios.json").read_text())["scenarios"]
    source = raw["school_age"][0]
    scenario = Scenario.objects.get(scenario_id=source["id"])
    assert scenario.stage == "school_age"
    assert (scenario.age, scenario.age_range) == (9, "ages 6-11")
    assert scenario.setting_location == source["setting"]["location"]
    assert scenario.setting_time == source["setting"]["time"]
    assert scenario.setting_atmosphere == source["setting"]["atmosphere"]
    assert scenario.context_text == source["context_text"]
    assert scenario.trigger_sender == source["trigger_event"]["sender"]
    assert scenario.trigger_message == source["trigger_event"]["message_content"]
    assert scenario.action_required == source["trigger_event"]["action_required"]
    # The one scenario without action_required imports with an empty one.
    assert Scenario.objects.filter(action_required="").count() == 1

    pair = json.loads((release_dir / "ground_truth.json").read_text())["pairs"][0]
    reference = ReferenceResponse.objects.get(
        character__key=pair["character_id"], scenario__scenario_id=pair["scenario_id"]
    )
    assert reference.inner_consciousness == pair["inner_consciousness"]
    assert reference.final_decision == pair["final_decision"]
    assert reference.decision_type == ReferenceResponse.DecisionType.IMPORTED

    question = json.loads((release_dir / "mcq.json").read_text())["questions"][0]
    item = McqItem.objects.get(question_id=question["question_id"])
    assert item.correct_answer == question["correct_answer"]
    assert [(o.label, o.content, o.is_correct, o.source_character) for o in item.options.all()] == [
        (o["label"], o["content"], o["is_correct"], o["source_character"])
        for o in question["options"]
    ]
    assert McqOption.objects.filter(is_generated=True).count() == 54

    step2 = json.loads((release_dir / "activated_memories_step2.json").read_text())
    record = step2["annotations"]["CHAR_01"]["SCN_SCHOOL_AGE_1"]
    activation = ActivationSet.objects.get(
        character__key="CHAR_01", scenario__scenario_id="SCN_SCHOOL_AGE_1", step=2
    )
    assert activation.memory_ids == [m["memory_id"] for m in record["activated_memories"]]
    assert activation.memory_types == [m["type"] for m in record["activated_memories"]]
    assert activation.scenario_age == record["scenario_age"]
    assert activation.details["final_activated_count"] == record["final_activated_count"]


def test_reimporting_the_release_changes_nothing(release_dir):
    import_paths([release_dir])
    before = corpus_dump()

    summary = import_paths([release_dir])

    assert corpus_dump() == before
    assert not summary.changed
    counts = summary.as_dict()["counts"]
    assert counts["mcq_items"] == {"created": 0, "updated": 0, "unchanged": 673}
    assert counts["activation_sets"]["unchanged"] == 1408


def test_kind_is_read_from_content_not_from_the_file_name(release_dir):
    renamed = [(f"upload-{i}.json", data) for i, (_, data) in enumerate(release_files(release_dir))]
    summary = import_files(renamed)
    assert [f["kind"] for f in summary.files] == [
        "scenarios",
        "references",
        "mcq",
        "activations_step1",
        "activations_step2",
    ]
    assert ReferenceResponse.objects.count() == 673


def test_first_release_ground_truth_is_the_same_pairs_plus_agreement_records(release_dir):
    # history/d81be18 differs from the current ground truth only by pairwise_analysis,
    # which is not stored: importing it over the current one changes nothing.
    import_paths([release_dir])
    before = corpus_dump()
    history = release_dir / "history" / "d81be18" / "ground_truth.json"

    summary = import_paths([history])

    assert corpus_dump() == before
    assert summary.as_dict()["counts"]["references"] == {
        "created": 0,
        "updated": 0,
        "unchanged": 673,
    }
    assert any("pairwise_analysis of 266 pairs" in n for n in summary.notices)


def test_a_changed_imported_reference_is_updated_in_place(release_dir):
    import_paths([release_dir])
    doc = json.loads((release_dir / "ground_truth.json").read_text())
    pair = doc["pairs"][0]
    pair["final_decision"] = "I choose to stay home."
    before = corpus_counts()

    summary = import_files([("ground_truth.json", json.dumps(doc).encode())])

    assert corpus_counts() == before
    reference = ReferenceResponse.objects.get(
        character__key=pair["character_id"], scenario__scenario_id=pair["scenario_id"]
    )
    assert reference.final_decision == "I choose to stay home."
    assert reference.source == "ground_truth.json"
    assert summary.as_dict()["counts"]["references"] == {
        "created": 0,
        "updated": 1,
        "unchanged": 672,
    }


def test_an_adjudicated_reference_is_never_replaced_by_an_import(release_dir):
    import_paths([release_dir])
    reference = ReferenceResponse.objects.order_by("pk").first()
    ReferenceResponse.objects.filter(pk=reference.pk).update(
        decision_type=ReferenceResponse.DecisionType.EDITED,
        final_decision="Edited by the arbitrator.",
    )

    summary = import_paths([release_dir / "ground_truth.json"])

    reference.refresh_from_db()
    assert reference.final_decision == "Edited by the arbitrator."
    assert reference.decision_type == ReferenceResponse.DecisionType.EDITED
    assert any("kept the edited reference" in n for n in summary.notices)
    assert not summary.changed


def test_a_changed_mcq_item_gets_a_new_version_and_its_new_options(release_dir):
    import_paths([release_dir])
    doc = json.loads((release_dir / "mcq.json").read_text())
    question = doc["questions"][0]
    question["options"][0]["content"] = "I choose something else entirely."
    before = McqOption.objects.count()

    summary = import_files([("mcq.json", json.dumps(doc).encode())])

    item = McqItem.objects.get(question_id=question["question_id"])
    assert item.version == 2
    assert item.options.get(label="A").content == "I choose something else entirely."
    assert McqOption.objects.count() == before
    assert summary.as_dict()["counts"]["mcq_items"] == {
        "created": 0,
        "updated": 1,
        "unchanged": 672,
    }
