"""The construction variant carries every item's adjudication chain: the pair's
candidates with their provenance, each annotator's blinded judgment (letters mapped to
candidates), the arbitration decision; none of it reaches the model-facing files."""

import json

import pytest

from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from tests.comparison.helpers import MODEL_NAMES, make_pair, people

from .conftest import edited_by_arbitrator, file_text, make_item

pytestmark = pytest.mark.django_db


@pytest.fixture
def arbitrated_item():
    who = people()
    pair = make_pair(key="CHAR_42")
    decision = edited_by_arbitrator(
        pair, who, "I stay behind and water Ms. Lee's plants before I leave."
    )
    source = pair.candidates.get(family="claude")
    item = make_item(
        "Q_CHAR_42_SCN_CHAIN",
        character=pair.character,
        scenario=pair.scenario,
        status=McqItem.Status.FINAL,
        reference=decision.reference,
        texts={"B": decision.reference.final_decision},
    )
    return {**who, "pair": pair, "decision": decision, "item": item, "source": source}


def test_construction_items_carry_candidates_judgments_and_arbitration(arbitrated_item):
    files = build_export().files
    (question,) = json.loads(files["construction/items.json"])["questions"]
    chain = question["chain"]
    assert {"candidates", "comparison", "arbitration"} <= set(chain)

    candidates = chain["candidates"]
    assert sorted(c["family"] for c in candidates) == ["claude", "gemini", "gpt"]
    assert {c["model_name"] for c in candidates} == set(MODEL_NAMES.values())
    assert all(c["in_comparison_pair"] for c in candidates)

    comparison = chain["comparison"]
    assert comparison["status"] == "resolved"
    judged = {
        a["annotator"]: a["judgment"]["selected_candidate"] for a in comparison["assignments"]
    }
    by_family = {c["family"]: c["id"] for c in candidates}
    assert judged == {
        "cmp-annotator-1": by_family["claude"],
        "cmp-annotator-2": by_family["claude"],
        "cmp-annotator-3": by_family["gpt"],
    }
    guidance = [a["judgment"]["revision_guidance"] for a in comparison["assignments"]]
    assert "Name the teacher." in guidance
    assert all(len(a["judgment"]["versions"]) == 1 for a in comparison["assignments"])

    (decision,) = chain["arbitration"]
    assert decision["kind"] == "edited" and decision["arbitrator"] == "cmp-arbitrator"
    assert decision["source_candidate"] == arbitrated_item["source"].pk
    assert decision["reference"] == question["reference"]["id"]
    assert question["reference"]["decision_type"] == "edited"
    assert question["reference"]["source_family"] == "claude"


def test_the_chain_stays_out_of_the_model_facing_files(arbitrated_item):
    files = build_export().files
    for path in [p for p in files if p.startswith("model_facing/")]:
        text = file_text(path, files[path])
        for leak in (*MODEL_NAMES.values(), "cmp-annotator", "cmp-arbitrator", "Name the teacher"):
            assert leak not in text, f"{leak} in {path}"
