"""Assembly (seed 000 App. D.3): the key is the target's reference, the similarity and
relevance filters reject what they should and record why, an item with fewer than three
valid distractors is left incomplete (never padded), and the option order follows the
recorded seed."""

import pytest

from adjudication.mcq import assembly_rules as mcq_assembly
from adjudication.mcq.models import McqAssemblyRun, McqError, McqItem, McqItemVersion
from adjudication.mcq.services import item_assembly
from llm.testing.replies import json_reply

from .conftest import KEY, NEAR_DUPLICATE, OFF_SCENARIO, PLAUSIBLE, judge_config

pytestmark = pytest.mark.django_db


def candidate_records(item):
    return {c["character"]: c for c in item.assembly_params["candidates"]}


def test_the_filters_reject_a_near_duplicate_and_an_off_scenario_response(references):
    item = item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)

    records = candidate_records(item)
    # The near-duplicate differs from the key by a stop word only: the same TF-IDF vector.
    assert records["CHAR_02"]["similarity_to_key"] == pytest.approx(1.0)
    assert records["CHAR_02"]["rejected"] == mcq_assembly.REJECTED_TOO_SIMILAR
    # The off-scenario response shares no content word with the scenario: cosine 0.
    assert records["CHAR_03"]["relevance"] == 0.0
    assert records["CHAR_03"]["rejected"] == mcq_assembly.REJECTED_OFF_SCENARIO
    assert all(records[k]["rejected"] is None for k in PLAUSIBLE)
    # The thresholds and the measure are recorded with the item.
    params = item.assembly_params
    assert params["measure"] == "tfidf_cosine"
    assert params["similarity_max"] == mcq_assembly.DEFAULT_SIMILARITY_MAX
    assert params["relevance_min"] == mcq_assembly.DEFAULT_RELEVANCE_MIN
    assert params["selector"] == "fallback" and params["valid_distractors"] == 4

    options = {o.label: o for o in item.options.all()}
    assert len(options) == 4 and item.status == McqItem.Status.SCREENING
    texts = [o.content for o in options.values()]
    assert NEAR_DUPLICATE not in texts and OFF_SCENARIO not in texts
    key = options[item.correct_answer]
    assert key.is_correct and key.content == KEY and key.source_reference == references["CHAR_01"]
    assert sum(o.is_correct for o in options.values()) == 1
    chosen = {c for c, r in records.items() if r["selected"]}
    assert chosen == {o.source_character for o in options.values() if not o.is_correct}
    assert len(chosen) == 3
    version = item.versions.get()
    assert version.number == 1 and version.origin == McqItemVersion.Origin.ASSEMBLY
    assert version.assembly_params == params and version.seed == item.seed


def test_the_key_takes_its_balanced_place_and_the_seed_shuffles_the_rest(references):
    item = item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    chosen = [c for c in item.assembly_params["candidates"] if c["selected"]]
    by_ref = {r.pk: r for r in references.values()}
    # The fallback's selection order: most relevant first.
    chosen.sort(key=lambda c: -c["relevance"])
    distractors = [by_ref[c["reference_id"]].final_decision for c in chosen]
    import random

    # The first item of its batch: every label is free, the seed picks one.
    key_label = random.Random(item.seed).choice("ABCD")
    assert item.correct_answer == key_label
    assert item.assembly_params["key_balance"] == {
        "keys_before": {"A": 0, "B": 0, "C": 0, "D": 0},
        "key_label": key_label,
    }
    rest = [1, 2, 3]
    random.Random(item.seed).shuffle(rest)
    slot = "ABCD".index(key_label)
    order = [*rest[:slot], 0, *rest[slot:]]
    expected = [([KEY] + distractors)[j] for j in order]
    assert [o.content for o in item.options.order_by("label")] == expected
    assert item.seed == mcq_assembly.derive_seed(item_assembly.ASSEMBLY_BASE_SEED, item.question_id)


def test_stricter_thresholds_reject_more_and_are_recorded(references):
    params = mcq_assembly.AssemblyParams(similarity_max=0.3, relevance_min=0.05)
    item = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, params=params, selector=False
    )
    records = candidate_records(item)
    too_similar = {c for c, r in records.items() if r["rejected"] == "too_similar_to_key"}
    # CHAR_04 repeats "water the plants" and "amusement park": above 0.3 to the key.
    assert too_similar == {"CHAR_02", "CHAR_04"}
    assert records["CHAR_04"]["similarity_to_key"] >= 0.3
    assert item.assembly_params["similarity_max"] == 0.3
    assert item.assembly_params["relevance_min"] == 0.05
    assert item.status == McqItem.Status.SCREENING


def test_fewer_than_three_valid_distractors_leave_the_item_incomplete_never_padded(references):
    params = mcq_assembly.AssemblyParams(relevance_min=0.2)
    item = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, params=params, selector=False
    )
    records = candidate_records(item)
    valid = {c for c, r in records.items() if r["rejected"] is None}
    assert valid == {"CHAR_05", "CHAR_07"}  # relevance 0.30 and 0.26; the others lower
    assert item.status == McqItem.Status.NEEDS_COMPLETION
    options = list(item.options.all())
    assert len(options) == 3  # the key and the two valid distractors: nothing added
    assert {o.source_character for o in options} == {"CHAR_01", "CHAR_05", "CHAR_07"}
    assert not any(o.is_generated for o in options)
    assert item.versions.get().origin == McqItemVersion.Origin.ASSEMBLY


def test_the_llm_selector_chooses_among_valid_candidates_over_http(references, fake_server):
    fake_server.enqueue(json_reply({"selected": ["D4", "D1", "D2"], "justification": "varied"}))
    item = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, selector=judge_config(fake_server)
    )
    offered = fake_server.requests[0].turns()[-1][1]
    assert (
        "<item_data>" in offered and NEAR_DUPLICATE not in offered and OFF_SCENARIO not in offered
    )
    assert item.assembly_params["selector"] == "llm"
    records = candidate_records(item)
    # D1..D4 are the valid candidates in character order: CHAR_04, 05, 06, 07.
    assert {c for c, r in records.items() if r["selected"]} == {"CHAR_04", "CHAR_05", "CHAR_07"}


def test_a_selector_choosing_unoffered_ids_falls_back_and_says_why(references, fake_server):
    fake_server.enqueue(json_reply({"selected": ["D1", "D9", "CHAR_02"], "justification": "x"}))
    item = item_assembly.mcq_item_assemble(
        reference_id=references["CHAR_01"].pk, selector=judge_config(fake_server)
    )
    assert item.assembly_params["selector"] == "fallback"
    assert "outside the offered candidates" in item.assembly_params["selector_note"]
    assert not candidate_records(item)["CHAR_02"]["selected"]


def test_an_assembly_run_covers_every_pair_once_and_shows_progress(
    references, person, django_capture_on_commit_callbacks
):
    from core.roles import Role

    admin = person(Role.ADMIN)
    run = item_assembly.mcq_assembly_run_start(started_by=admin, dispatch=False)
    assert run.total == 7
    run = item_assembly.mcq_assembly_run_execute(run_id=run.pk, selector=False)
    assert run.status == McqAssemblyRun.Status.DONE
    assert run.processed == 7 and run.percent == 100
    assert run.assembled + run.needs_completion == 7
    assert McqItem.objects.count() == 7
    assert set(McqItem.objects.values_list("question_id", flat=True)) == {
        f"Q_{k}_SCN_SCHOOL_AGE_1" for k in references
    }
    # Nothing is left to assemble, and a finished run is left as it is.
    assert item_assembly.pairs_awaiting_assembly().count() == 0
    again = item_assembly.mcq_assembly_run_execute(run_id=run.pk, selector=False)
    assert again.processed == 7 and McqItem.objects.count() == 7


def test_a_second_run_is_refused_while_one_is_queued(references, person):
    from core.roles import Role

    admin = person(Role.ADMIN)
    item_assembly.mcq_assembly_run_start(started_by=admin, dispatch=False)
    with pytest.raises(McqError, match="already queued or running"):
        item_assembly.mcq_assembly_run_start(started_by=admin, dispatch=False)


def test_thresholds_are_validated():
    with pytest.raises(ValueError, match="no similarity measure"):
        mcq_assembly.AssemblyParams(measure="embedding_cosine")
    with pytest.raises(ValueError, match="below the similarity threshold"):
        mcq_assembly.AssemblyParams(similarity_max=0.2, relevance_min=0.3)
