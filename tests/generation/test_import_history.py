"""The first release's three families' decisions (history/d81be18, 266 pairs) import as
candidates with origin "imported", idempotently and validated like the rest."""

import json

import pytest

from annotation.corpus_import.importing import import_files, import_paths
from annotation.corpus_import.problems import ImportRejected
from annotation.generation.models import Candidate

pytestmark = pytest.mark.django_db

EMPTY_DECISIONS = 5  # pairs of the first release where one model gave no decision


def history(release_dir):
    return release_dir / "history" / "d81be18" / "ground_truth.json"


def test_the_three_families_decisions_import_as_candidates(release_dir):
    import_paths([release_dir])

    summary = import_paths([history(release_dir)])

    imported = Candidate.objects.filter(origin=Candidate.Origin.IMPORTED)
    assert imported.count() == 266 * 3 - EMPTY_DECISIONS
    assert summary.as_dict()["counts"]["candidates"]["created"] == 266 * 3 - EMPTY_DECISIONS
    assert imported.values("character", "scenario").distinct().count() == 266
    assert dict(imported.values_list("model_name", "family").distinct()) == {
        "claude-sonnet-4-6": "claude",
        "gpt-5_4": "gpt",
        "gemini-3_1-pro-preview": "gemini",
    }
    doc = json.loads(history(release_dir).read_text())
    pair = next(p for p in doc["pairs"] if "pairwise_analysis" in p)
    candidate = imported.get(
        character__key=pair["character_id"],
        scenario__scenario_id=pair["scenario_id"],
        family="gpt",
    )
    assert candidate.final_decision == pair["pairwise_analysis"]["decisions_by_model"]["gpt-5_4"]
    assert candidate.summary == candidate.emotional_tone == candidate.core_reasoning == ""
    assert candidate.run is None and candidate.unit is None
    assert any(f"{EMPTY_DECISIONS} empty model decisions" in n for n in summary.notices)


def test_importing_the_history_again_changes_nothing(release_dir):
    import_paths([release_dir])
    import_paths([history(release_dir)])
    before = list(Candidate.objects.order_by("pk").values())

    summary = import_paths([history(release_dir)])

    assert list(Candidate.objects.order_by("pk").values()) == before
    assert summary.as_dict()["counts"]["candidates"] == {
        "created": 0,
        "updated": 0,
        "unchanged": 266 * 3 - EMPTY_DECISIONS,
    }


def test_a_changed_decision_is_updated_in_place(release_dir):
    import_paths([release_dir])
    doc = json.loads(history(release_dir).read_text())
    import_files([("ground_truth.json", json.dumps(doc).encode())])
    pair = next(p for p in doc["pairs"] if "pairwise_analysis" in p)
    pair["pairwise_analysis"]["decisions_by_model"]["claude-sonnet-4-6"] = "I stay."

    summary = import_files([("ground_truth.json", json.dumps(doc).encode())])

    assert summary.as_dict()["counts"]["candidates"]["updated"] == 1
    assert (
        Candidate.objects.get(
            character__key=pair["character_id"],
            scenario__scenario_id=pair["scenario_id"],
            family="claude",
        ).final_decision
        == "I stay."
    )


def test_bad_decisions_are_rejected_with_file_record_and_field(release_dir):
    import_paths([release_dir])
    doc = json.loads(history(release_dir).read_text())
    analysed = [p for p in doc["pairs"] if "pairwise_analysis" in p]
    analysed[0]["pairwise_analysis"]["decisions_by_model"]["llama-4"] = "I go."
    analysed[1]["pairwise_analysis"]["decisions_by_model"]["gpt-5_4"] = 42
    del analysed[2]["pairwise_analysis"]["decisions_by_model"]

    with pytest.raises(ImportRejected) as rejected:
        import_files([("ground_truth.json", json.dumps(doc).encode())])

    problems = {(p.record, p.field): p.message for p in rejected.value.errors}
    first = f"{analysed[0]['character_id']} / {analysed[0]['scenario_id']}"
    second = f"{analysed[1]['character_id']} / {analysed[1]['scenario_id']}"
    third = f"{analysed[2]['character_id']} / {analysed[2]['scenario_id']}"
    assert "unknown model" in problems[(first, "pairwise_analysis.decisions_by_model.llama-4")]
    assert "must be a string" in problems[(second, "pairwise_analysis.decisions_by_model.gpt-5_4")]
    assert "missing required field" in problems[(third, "pairwise_analysis.decisions_by_model")]
    assert all(p.file == "ground_truth.json" for p in rejected.value.errors)
    assert not Candidate.objects.exists()
