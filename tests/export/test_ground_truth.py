"""ground_truth.json publishes each pair's current reference (issue #34): once the
consensus-then-arbitration workflow replaces a pair's imported reference, the export
carries the adjudicated text, in all three formats, while the construction record still
names the reference the item was keyed on."""

import csv
import io
import json

import pytest

from adjudication.arbitration.models import ReferenceResponse
from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from tests.comparison.helpers import make_pair, people

from .conftest import edited_by_arbitrator, make_item

pytestmark = pytest.mark.django_db

IMPORTED_DECISION = "I keep the plants watered as the release said I would."
ADJUDICATED_DECISION = "I stay behind and water Ms. Lee's plants before I leave."


@pytest.fixture
def imported_pair():
    """A pair keyed on an imported reference, with a final item keyed on it."""
    who = people()
    pair = make_pair(key="CHAR_43")
    imported = ReferenceResponse.objects.create(
        character=pair.character,
        scenario=pair.scenario,
        summary="The release's summary of why I stay.",
        emotional_tone="calm",
        final_decision=IMPORTED_DECISION,
        decision_type=ReferenceResponse.DecisionType.IMPORTED,
        source="release",
    )
    item = make_item(
        "Q_CHAR_43_SCN_GT",
        character=pair.character,
        scenario=pair.scenario,
        status=McqItem.Status.FINAL,
        reference=imported,
        texts={"B": IMPORTED_DECISION},
    )
    return {**who, "pair": pair, "imported": imported, "item": item}


def _ground_truth(files) -> tuple[list, list, list]:
    doc = json.loads(files["release/ground_truth.json"])["pairs"]
    lines = [json.loads(x) for x in files["release/ground_truth.jsonl"].decode().splitlines()]
    rows = list(csv.DictReader(io.StringIO(files["release/ground_truth.csv"].decode("utf-8-sig"))))
    return doc, lines, rows


def _adjudicate(pair, who) -> ReferenceResponse:
    return edited_by_arbitrator(pair, who, ADJUDICATED_DECISION).reference


def test_ground_truth_follows_an_adjudicated_change_of_the_reference(imported_pair):
    doc, lines, rows = _ground_truth(build_export().files)
    assert [p["final_decision"] for p in doc] == [IMPORTED_DECISION]
    assert lines == doc

    adjudicated = _adjudicate(imported_pair["pair"], imported_pair)
    imported_pair["imported"].refresh_from_db()
    assert imported_pair["imported"].superseded_at is not None  # the platform replaced it

    files = build_export().files
    doc, lines, rows = _ground_truth(files)
    # One pair, now carrying the adjudicated text (every field of it), in every format.
    assert doc == [
        {
            "character_id": "CHAR_43",
            "scenario_id": imported_pair["pair"].scenario.scenario_id,
            "inner_consciousness": {
                "summary": adjudicated.summary,
                "emotional_tone": "",
                "core_reasoning": "",
                "value_orientation": "",
            },
            "final_decision": ADJUDICATED_DECISION,
            "stage": imported_pair["pair"].scenario.stage,
        }
    ]
    assert lines == doc
    assert [(r["character_id"], r["final_decision"]) for r in rows] == [
        ("CHAR_43", ADJUDICATED_DECISION)
    ]
    assert IMPORTED_DECISION not in files["release/ground_truth.json"].decode()
    # The construction record still names the reference the item was keyed on.
    (question,) = json.loads(files["construction/items.json"])["questions"]
    assert question["reference"]["id"] == imported_pair["imported"].pk
    assert question["reference"]["superseded_at"] is not None


def test_an_item_without_its_own_link_publishes_the_pairs_current_reference(imported_pair):
    item = imported_pair["item"]
    item.reference = None
    item.save(update_fields=["reference"])
    adjudicated = _adjudicate(imported_pair["pair"], imported_pair)
    doc, _, _ = _ground_truth(build_export().files)
    assert [(p["character_id"], p["final_decision"]) for p in doc] == [
        ("CHAR_43", adjudicated.final_decision)
    ]
