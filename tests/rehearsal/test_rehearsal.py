"""The rehearsal (issue 18): one lab's small benchmark built from an empty PostgreSQL
database to the exported final set, every step over HTTP by a user of the right role,
a real Celery worker doing the queued work and the fake provider server on loopback
answering every model call. 4 characters × 3 scenarios.

At the end: every acknowledged decision is in the export's construction record, and
nothing a stage left out appears downstream. Issue 32's breaks are on the way: a
one-field redraft, the senior's way forward in the memory audit, a regenerated pair
decided in its second round and the pipeline page's live blockers, and the baseline
proposal equal to the optimum of quotas chosen by hand. Issue 35's evaluation settings
too: an App. H memory-content ablation run (C2) and Mem0 predictions imported from a
lab's own backend, both in the analysis."""

import json
from collections import Counter

import pytest
from sklearn.metrics import cohen_kappa_score

from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.judging.models import JudgeCall
from adjudication.mcq.models import McqItem, McqReviewDecision
from annotation.candidate_screening.models import CandidateCleaning, LeakFlag
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.generation.models import Candidate, GenerationUnit
from annotation.scenario_review.models import ScenarioReview
from audit.memory_quality.models import MemoryCase, TimelineEntry
from evaluation.models import EvaluationPrediction, RetrievedMemory
from humanbaseline.models import Participation

from . import evaluation_steps, issue32_steps, judging_steps, leak_step, observer_steps, steps

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_an_empty_database_to_the_exported_final_set(
    live_server, celery_worker_factory, fake_provider, pipeline_env, people, release_dir, tmp_path
):
    worker = celery_worker_factory(extra_env=pipeline_env, pool="threads", concurrency=4)
    lab = steps.Lab(live_server.url)

    steps.draft_character(lab, worker)
    drafted = ProfileVersion.objects.get(character__key=steps.DRAFTED)
    assert drafted.number == 1 and drafted.conscientiousness == 0.10
    # Issue 32: a one-field redraft changes that field (after one a copying model left
    # identical, whose failure is a blocker only until the field is redrafted).
    failed_redraft, _ = issue32_steps.redraft_one_field(lab, worker, fake_provider)
    files = steps.corpus_files(release_dir, tmp_path, fake_provider.responder.held)
    steps.import_corpus(lab, files, worker)
    assert Character.objects.count() == 4
    assert Memory.objects.count() == 48
    assert Scenario.objects.count() == 3

    steps.review_profiles(lab)
    assert ProfileVersion.objects.filter(frozen_at__isnull=False).count() == 4

    memory_run = steps.generate_memories(lab, worker)
    generated = Memory.objects.filter(character__key=steps.DRAFTED)
    assert generated.count() == steps.GENERATED_MEMORIES
    assert all(m.source.startswith(f"generated: run {memory_run},") for m in generated)

    run = steps.audit_memories(lab, worker, confirm=[steps.HINDSIGHT_ID])
    # Issue 32: the re-audit keeps flagging the senior's edit; the way forward (re-audit
    # again, then the reviewing team's false-positive agreement) ends the case, and the
    # run finalizes.
    case_id = issue32_steps.senior_way_forward(lab, run)
    steps.finalize_audit(lab, run)
    hindsight = Memory.objects.get(memory_id=steps.HINDSIGHT_ID)
    assert TimelineEntry.objects.filter(run_id=run, memory=hindsight).exists()
    assert issue32_steps.EDITED_ENDING in hindsight.content_full
    assert MemoryCase.objects.get(pk=case_id).review_round == 2
    duplicate = Memory.objects.get(memory_id=steps.DUPLICATE_ID)
    assert not TimelineEntry.objects.filter(run_id=run, memory=duplicate).exists()
    # Issue 37: observers who never see the profile rate the drafted character.
    observer_steps.observe_the_drafted_character(lab, worker, fake_provider)

    scenario_ids = steps.review_scenarios(lab)
    assert ScenarioReview.objects.filter(stage="complete").count() == 3 == len(scenario_ids)

    steps.generate_candidates(lab, scenario_ids, worker)
    assert Candidate.objects.count() == 4 * 3 * 3
    steps.assign_pairs(lab)
    # The planted leak was caught; its pair waited; the admin cleaned it and assigned it.
    flag_id = leak_step.clean_the_leak(lab)
    assert LeakFlag.objects.get().pk == flag_id and not LeakFlag.objects.filter(status="open")
    cleaned = CandidateCleaning.objects.get(flag_id=flag_id).candidate
    assert (cleaned.character.key, cleaned.family) == ("CHAR_02", "gpt")
    assert "OpenAI" not in cleaned.final_decision
    steps.judge_pairs(lab)
    decided = steps.arbitrate(lab, skip={steps.REGENERATED_PAIR})
    assert set(decided.values()) == {"adopted", "edited", "rewritten", "discarded"}
    # Issue 22: an LLM judge does the annotators' task on every pair in two orders; its
    # report's agreement with the adjudicated outcome is the share counted here.
    report = judging_steps.judge_with_an_llm(lab, worker)
    calls = JudgeCall.objects.filter(run__name="rehearsal judge")
    assert calls.count() == 2 * 12 == calls.filter(status="succeeded").count()
    references = {
        r.character_id * 10**6 + r.scenario_id: r.source_candidate_id
        for r in ReferenceResponse.objects.filter(
            superseded_at__isnull=True, source_candidate__isnull=False
        )
    }
    firsts = [
        (call.pair.character_id * 10**6 + call.pair.scenario_id, call.verdict.selected_candidate_id)
        for call in calls.filter(order_index=0).select_related("pair", "verdict")
    ]
    hits = [references[key] == chosen for key, chosen in firsts if key in references]
    assert hits and float(
        report[("Agreement with the adjudicated outcome", "Judge selected the reference's source")]
    ) == pytest.approx(sum(hits) / len(hits))
    # ... and its judge–human κ is the mean over annotator slots of scikit-learn's Cohen's
    # κ on selections coded by family (slots in assignment order within each pair).
    judge_family = {
        call.pair_id: call.verdict.selected_candidate.family
        for call in calls.filter(order_index=0).select_related("verdict__selected_candidate")
    }
    slots = {}
    for j in (
        ComparisonJudgment.objects.filter(assignment__pair_id__in=judge_family)
        .order_by("assignment__pair_id", "assignment_id")
        .select_related("selected_candidate")
    ):
        slots.setdefault(j.assignment.pair_id, []).append(j.selected_candidate.family)
    pairs = sorted(judge_family)
    kappas = [
        cohen_kappa_score([judge_family[p] for p in pairs], [slots[p][slot] for p in pairs])
        for slot in range(3)
    ]
    shown = report[
        (
            "Agreement on the selection: the judge beside the annotators",
            "Judge–human κ (mean Cohen's κ over the slots)",
        )
    ]
    if all(k == k for k in kappas):  # NaN when a slot or the judge chose one family only
        assert float(shown) == pytest.approx(sum(kappas) / 3)
    else:
        assert shown == ""
    # Issue 32: the fifth escalated pair goes back for regeneration; its second round is
    # adopted, and the pipeline page counts it decided with no stale blocker.
    issue32_steps.regenerate_pair(lab, worker, steps.REGENERATED_PAIR)
    issue32_steps.pipeline_shows_live_blockers_only(lab, failed_redraft)
    steps.assemble_items(lab, worker)
    steps.review_items(lab, worker)
    assert McqItem.objects.exclude(status__in=("final", "removed")).count() == 0
    # Keys balanced over the assembly run: counts per position differ by at most one.
    placed = Counter(McqItem.objects.values_list("correct_answer", flat=True))
    assert max(placed.values()) - min(placed.get(x, 0) for x in "ABCD") <= 1, placed
    audit_id = steps.create_label_audit(lab)
    adjudicated = steps.audit_labels(lab, audit_id)
    assert sorted(adjudicated.values()) == ["key_change", "usable_as_is"]
    selection_id = steps.select_baseline(lab)
    issue32_steps.baseline_proposal_is_the_hand_chosen_optimum()
    study_id = steps.run_baseline_study(lab, selection_id)
    participation = Participation.objects.get(study_id=study_id)
    assert participation.status == "finalized"
    assert participation.responses.exclude(choice="").count() == participation.responses.count()
    run_id = steps.evaluate(lab, worker)
    assert EvaluationPrediction.objects.filter(run_id=run_id, status="answered").count() == (
        McqItem.objects.filter(status="final").count()
    )
    # Issue 35: one App. H ablation run (C2) on two items, and Mem0's predictions
    # imported; the analysis shows both, Mem0 inside the Memory-Augmented Avg.
    ablation_run = evaluation_steps.run_ablation(lab, worker)
    evaluation_steps.c2_shows_another_characters_memories(ablation_run)
    evaluation_steps.import_mem0(lab)
    evaluation_steps.analysis_shows_them(lab, worker, ablation_run)

    files = steps.export(lab, worker)
    manifest = json.loads(files["manifest.json"])
    questions = {
        q["question_id"]: q for q in json.loads(files["construction/items.json"])["questions"]
    }
    final = set(McqItem.objects.filter(status="final").values_list("question_id", flat=True))
    assert set(questions) == final and manifest["counts"]["final_items"] == len(final)

    # Every acknowledged decision is in the construction record of its item.
    for pair in ComparisonPair.objects.exclude(status="discarded").select_related(
        "character", "scenario"
    ):
        chain = questions[f"Q_{pair.character.key}_{pair.scenario.scenario_id}"]["chain"]
        judges = {a["annotator"] for a in chain["comparison"]["assignments"] if a["judgment"]}
        assert judges == set(steps.EXPERTS), (pair, chain["comparison"])
    for decision in ArbitrationDecision.objects.select_related("pair__character", "pair__scenario"):
        qid = f"Q_{decision.pair.character.key}_{decision.pair.scenario.scenario_id}"
        if decision.kind == "discarded":
            assert qid not in questions  # a discarded pair makes no item
            continue
        recorded = questions[qid]["chain"]["arbitration"]
        assert [d["kind"] for d in recorded] == [decision.kind]
        assert decision.reason in json.dumps(recorded)
    for decision in McqReviewDecision.objects.select_related("item"):
        assert decision.note in json.dumps(questions[decision.item.question_id]["chain"]), (
            decision.item.question_id
        )
    for qid, kind in adjudicated.items():
        assert kind in json.dumps(questions[qid]["chain"]["label_audit"])

    # Nothing a stage left out appears downstream: the duplicate the audit dropped is in
    # no exported file, no retrieval set and no generation unit.
    for path, content in files.items():
        assert steps.DUPLICATE_ID.encode() not in content, path
    assert not RetrievedMemory.objects.filter(memory__memory_id=steps.DUPLICATE_ID).exists()
    assert not GenerationUnit.objects.filter(
        activated_memory_ids__contains=[steps.DUPLICATE_ID]
    ).exists()
    kept = TimelineEntry.objects.filter(run_id=run)
    assert manifest["counts"]["memories"] == kept.count() >= 47 + 8
    assert kept.filter(character__key=steps.DRAFTED).count() >= 8  # generated, audited

    # The protocol held, so the manifest records no deviation; its key distribution is
    # the final set's.
    assert manifest["protocol_deviations"] == []
    assert manifest["characters_without_finalized_audit"] == []
    keys = Counter(McqItem.objects.filter(status="final").values_list("correct_answer", flat=True))
    assert manifest["key_distribution"] == {label: keys.get(label, 0) for label in "ABCD"}
