"""The word edit rate of App. D.2 on the keyed text (the final decision the MCQ keys) and
on all fields of the reference, each checked against a word-level edit distance written
here apart from ``agreement``: stored on the reference, shown on the outcome page, in
its CSV and API, and in the construction export."""

import json
import re
from functools import cache

import pytest
from django.urls import reverse

from adjudication.arbitration import services
from adjudication.export.services import build_export
from adjudication.mcq.models import McqItem
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.export.conftest import make_item

pytestmark = pytest.mark.django_db

TEXT_FIELDS = ("summary", "emotional_tone", "core_reasoning", "final_decision")


def word_list(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9]+(?:'[a-z0-9]+)*", text.lower()))


def word_distance(source: tuple[str, ...], target: tuple[str, ...]) -> int:
    """Levenshtein over words by plain recursion with a cache (no table, no numpy)."""

    @cache
    def d(i: int, j: int) -> int:
        if i == 0 or j == 0:
            return i + j
        return min(
            d(i - 1, j) + 1,
            d(i, j - 1) + 1,
            d(i - 1, j - 1) + (source[i - 1] != target[j - 1]),
        )

    return d(len(source), len(target))


def rate(before: str, after: str) -> float:
    source, target = word_list(before), word_list(after)
    return word_distance(source, target) / len(source)


@pytest.fixture
def edited_rationale_only():
    """An escalated pair whose arbitrator edits the Claude candidate's rationale and
    leaves its final decision (the keyed text) exactly as it was."""
    who = people()
    pair = make_pair(key="CHAR_44")
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Say why the promise matters.")
    judge(a[2], family="gpt")
    source = pair.candidates.get(family="claude")
    fields = {
        "summary": "I remember the cold library, and the promise to my teacher wins.",
        "emotional_tone": "guilt, then resolve",
        "core_reasoning": "",
        "final_decision": source.final_decision,
    }
    decision = services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=who["arbitrator"],
        kind="edited",
        candidate_id=source.pk,
        fields=fields,
    )
    return {**who, "pair": pair, "source": source, "fields": fields, "decision": decision}


def test_an_unchanged_decision_has_keyed_rate_zero_and_edited_fields_count(edited_rationale_only):
    ref = edited_rationale_only["decision"].reference
    source, fields = edited_rationale_only["source"], edited_rationale_only["fields"]
    before = "\n".join(getattr(source, f) for f in TEXT_FIELDS)
    after = "\n".join(fields[f] for f in TEXT_FIELDS)
    assert rate(source.final_decision, ref.final_decision) == 0
    assert ref.keyed_word_edit_rate == 0.0
    assert ref.word_edit_rate == pytest.approx(rate(before, after)) and ref.word_edit_rate > 0


def test_an_edited_decision_is_measured_on_the_decision_alone(edited_rationale_only):
    who = edited_rationale_only
    pair = make_pair(key="CHAR_45")
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    for assignment in a:
        judge(assignment, family="gpt", rating="partial", guidance="Name the teacher.")
    source = pair.candidates.get(family="gpt")
    edited = "I tell Mom I will join after I water Ms. Lee's plants."
    decision = services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=who["arbitrator"],
        kind="edited",
        candidate_id=source.pk,
        fields={"summary": source.summary, "final_decision": edited},
    )
    ref = decision.reference
    assert ref.keyed_word_edit_rate == pytest.approx(rate(source.final_decision, edited))
    assert ref.keyed_word_edit_rate > ref.word_edit_rate > 0  # diluted by the rationale


def test_the_outcome_page_csv_and_api_show_both_means(client, edited_rationale_only):
    who = edited_rationale_only
    ref = who["decision"].reference
    client.force_login(who["admin"])
    body = client.get(reverse("adjudication:outcomes")).content.decode()
    keyed = re.search(r'data-testid="mean-keyed-edit-rate">([^<(]+)', body).group(1).strip()
    all_fields = re.search(r'data-testid="mean-edit-rate">([^<(]+)', body).group(1).strip()
    # Rates are percentages with one decimal (issue 21: one number format per kind).
    assert keyed == "0.0%"
    assert all_fields == f"{100 * ref.word_edit_rate:.1f}%" and all_fields != "0.0%"
    # The page says which of the two the paper's figure is comparable with.
    assert 'data-testid="edit-rate-paper-note"' in body and "15%" in body
    csv = client.get(reverse("adjudication:outcomes-csv")).content.decode()
    assert "mean_word_edit_rate_keyed_decision,0.0" in csv
    assert f"mean_word_edit_rate_all_fields,{ref.word_edit_rate}" in csv
    stats = client.get(reverse("adjudication-api:outcomes")).json()["statistics"]
    assert stats["mean_word_edit_rate_keyed_decision"] == 0.0
    assert stats["mean_word_edit_rate_all_fields"] == pytest.approx(ref.word_edit_rate)


def test_the_pair_page_shows_both_rates(client, edited_rationale_only):
    who = edited_rationale_only
    client.force_login(who["arbitrator"])
    body = client.get(reverse("adjudication:pair", kwargs={"pair_id": who["pair"].pk})).content
    body = body.decode()
    assert re.search(r'data-testid="keyed-edit-rate">0\.000<', body)
    ref = who["decision"].reference
    assert re.search(rf'data-testid="edit-rate">{ref.word_edit_rate:.3f}<', body)


def test_the_construction_export_carries_both_rates(edited_rationale_only):
    who = edited_rationale_only
    ref = who["decision"].reference
    make_item(
        "Q_CHAR_44_SCN_RATE",
        character=who["pair"].character,
        scenario=who["pair"].scenario,
        status=McqItem.Status.FINAL,
        reference=ref,
        texts={"B": ref.final_decision},
    )
    (question,) = json.loads(build_export().files["construction/items.json"])["questions"]
    exported = question["reference"]
    assert exported["word_edit_rate_keyed_decision"] == 0.0
    assert exported["word_edit_rate_all_fields"] == pytest.approx(ref.word_edit_rate)
    assert "word_edit_rate" not in exported  # no name that leaves the text unsaid


def test_the_migration_backfills_the_keyed_rate_of_existing_references(edited_rationale_only):
    import importlib
    from pathlib import Path

    from django.apps import apps

    from adjudication import migrations
    from adjudication.arbitration.models import ReferenceResponse

    # Found by its name, whatever number the merge gives it.
    (path,) = Path(migrations.__file__).parent.glob("*_reference_keyed_word_edit_rate.py")
    migration = importlib.import_module(f"adjudication.migrations.{path.stem}")
    ref = edited_rationale_only["decision"].reference
    source = edited_rationale_only["source"]
    # A reference stored before the field existed: a changed decision, no keyed rate.
    changed = "I water the plants first and then tell Mom about the park."
    ReferenceResponse.objects.filter(pk=ref.pk).update(
        final_decision=changed, keyed_word_edit_rate=None
    )
    migration.backfill_keyed_rate(apps, None)
    ref.refresh_from_db()
    assert ref.keyed_word_edit_rate == pytest.approx(rate(source.final_decision, changed))
