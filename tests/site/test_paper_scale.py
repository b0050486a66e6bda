"""The paper-scale benchmark's builder (benchmarks/paper_build.py) at a tiny scale on the
demo, so the script cannot rot: its counts stay consistent and every page it times opens
for its role at both sizes."""

import re

import pytest
from django.test import Client

from adjudication.judging.models import JudgeCall
from adjudication.judging.selectors import judge_eligible_pairs
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from benchmarks import paper_build, paper_scale
from tests.conftest import offline_demo_providers

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(demo_built, db):
    """The demo, built once for this module (tests/conftest.py)."""


def test_the_targets_are_the_papers_counts_and_scale_copies_the_pairs():
    paper = paper_build.targets(1)
    assert (paper["pairs"], paper["judgments"], paper["escalations"]) == (704, 2112, 279)
    assert paper["memories_per_character"] == 1000
    assert (paper["label_audit_items"], paper["evaluation_runs"]) == (176, 65)
    tenfold = paper_build.targets(10)
    assert (tenfold["pairs"], tenfold["judgments"], tenfold["escalations"]) == (7040, 21120, 2790)
    # Memories, the label audit and the evaluation runs stop at the paper's counts.
    assert tenfold["memories_per_character"] == 1000 and tenfold["evaluation_runs"] == 65


def test_growing_the_demo_to_a_twentieth_gives_consistent_counts(
    demo, django_capture_on_commit_callbacks
):
    before = paper_build.counts()
    last = ComparisonPair.objects.order_by("-pk").first().pk
    with offline_demo_providers(), django_capture_on_commit_callbacks(execute=True):
        after = paper_build.grow(0.05)
    want = paper_build.targets(0.05)
    assert after["stand-in memories"] == 11 * want["memories_per_character"] == 550
    assert after["pairs"] == want["pairs"] == 35
    new = after["pairs"] - before["pairs"]
    # Every new pair: three candidates, the three annotators, all three judgments in.
    assert after["candidates in pairs"] == 3 * after["pairs"]
    assert after["assignments"] == before["assignments"] + 3 * new
    assert after["judgments"] == before["judgments"] + 3 * new
    assert ComparisonJudgment.objects.count() == after["judgments"]
    # Escalated by disagreement up to the target, the rest adopted unanimously; nine in
    # ten escalations decided by the arbitrator, the others wait in the queue.
    assert after["escalations"] == want["escalations"] == 14
    assert after["arbitration decisions"] == int(14 * paper_build.RESOLVED_SHARE)
    assert after["escalations open"] == 14 - after["arbitration decisions"]
    assert after["adopted unanimously"] == before["adopted unanimously"] + new - (
        14 - before["escalations"]
    )
    assert new == 30
    assert not ComparisonPair.objects.filter(pk__gt=last, status="annotating").exists()
    # The judge run: three candidate orders for every pair its annotators judged.
    run_calls = JudgeCall.objects.filter(run__name=paper_build.JUDGE_RUN_NAME)
    assert run_calls.count() == paper_build.JUDGE_ORDERS * judge_eligible_pairs().count()
    assert not run_calls.exclude(status=JudgeCall.Status.SUCCEEDED).exists()
    assert after["label audit items answered"] >= want["label_audit_items"]
    assert after["evaluation runs"] >= want["evaluation_runs"]
    assert after["final items"] == 673


def test_every_page_the_benchmark_times_opens_for_its_role(demo):
    urls = paper_scale.pages()
    assert [name for _, name, _ in urls] == [name for _, name, _ in paper_scale.PAGES]
    for user, name, url in urls:
        assert url is not None, name
        client = Client()
        client.force_login(paper_scale.user_named(user))
        response = client.get(url)
        assert response.status_code == 200, (name, url, response.status_code)


def test_beyond_the_paper_pairs_go_over_copies_of_the_release_scenarios(demo):
    from annotation.corpus.models import Scenario

    release = Scenario.objects.filter(references__decision_type="imported").distinct().count()
    scenarios = paper_build._scenario_copies(2)
    assert len(scenarios) == 2 * release == 128
    copies = [s for s in scenarios if s.scenario_id.startswith("SCN_COPY2_")]
    assert len(copies) == release
    original = Scenario.objects.get(scenario_id=copies[0].scenario_id.replace("COPY2_", ""))
    assert (copies[0].stage, copies[0].trigger_message) == (
        original.stage,
        original.trigger_message,
    )


def test_beyond_the_paper_the_judged_pairs_are_copied_with_their_rows(
    demo, django_capture_on_commit_callbacks
):
    from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
    from annotation.comparison.models import PairAssignment
    from benchmarks import paper_copies

    with offline_demo_providers(), django_capture_on_commit_callbacks(execute=True):
        paper_build.grow(0.05)
    sources = {(p.character_id, p.scenario.scenario_id): p for p in paper_copies.source_pairs()}
    assert len(sources) >= 25
    before = paper_build.counts()
    written = paper_copies.copy_pairs(before["pairs"] + 2 * len(sources), started=0.0)
    assert written == 2 * len(sources)
    after = paper_build.counts()
    assert after["pairs"] == before["pairs"] + written
    assert after["candidates in pairs"] == 3 * after["pairs"]
    assert after["assignments"] == before["assignments"] + 3 * written
    assert after["judgments"] == before["judgments"] + 3 * written
    copies = ComparisonPair.objects.filter(scenario__scenario_id__startswith="SCN_COPY")
    assert copies.count() == written
    run_calls = JudgeCall.objects.filter(run__name=paper_build.JUDGE_RUN_NAME)
    for copy in copies.select_related("scenario"):
        original = sources[
            (copy.character_id, re.sub(r"^SCN_COPY\d+_", "SCN_", copy.scenario.scenario_id))
        ]
        assert copy.scenario.scenario_id[:10] in ("SCN_COPY2_", "SCN_COPY3_")
        assert (copy.status, copy.escalation_reasons) == (
            original.status,
            original.escalation_reasons,
        )
        # Three candidates of its own, on the copied scenario, in the original's families.
        candidates = list(copy.candidates.all())
        assert {c.scenario_id for c in candidates} == {copy.scenario_id}
        assert sorted(c.family for c in candidates) == sorted(
            c.family for c in original.candidates.all()
        )
        ids = {c.pk for c in candidates}
        assignments = list(PairAssignment.objects.filter(pair=copy).select_related("judgment"))
        assert len(assignments) == 3 and all(set(a.permutation) == ids for a in assignments)
        for a in assignments:
            # The letter each annotator chose names the same family's candidate as in the
            # original: agreement and disagreement are kept.
            judged = a.judgment
            assert (
                judged.selected_candidate_id == a.permutation["ABC".index(judged.selected_letter)]
            )
            assert judged.versions.count() == 1
        chosen = sorted(a.judgment.selected_candidate.family for a in assignments)
        assert chosen == sorted(
            j.selected_candidate.family
            for j in ComparisonJudgment.objects.filter(assignment__pair=original)
        )
        # Its decision and reference when the original had them; its judge calls.
        decisions = ArbitrationDecision.objects.filter(pair=copy)
        assert decisions.count() == original.decisions.count()
        for decision in decisions:
            assert decision.source_candidate_id in ids
            assert decision.reference.scenario_id == copy.scenario_id
        if copy.status in ("adopted", "resolved"):
            reference = ReferenceResponse.objects.get(
                scenario=copy.scenario, character=copy.character_id
            )
            assert reference.source_candidate_id in ids and reference.supersedes_id is None
        calls = run_calls.filter(pair=copy)
        assert calls.count() == run_calls.filter(pair=original).count() == paper_build.JUDGE_ORDERS
        assert all(set(c.permutation) == ids for c in calls)
        assert all(c.verdict.selected_candidate_id in ids for c in calls)
    # Escalations, decisions and judge calls in proportion: twice the originals'.
    escalated = [p for p in sources.values() if p.status != "adopted"]
    assert after["escalations"] == before["escalations"] + 2 * len(escalated)
    assert after["arbitration decisions"] == before["arbitration decisions"] + 2 * sum(
        p.decisions.count() for p in sources.values()
    )
    assert after["judge calls"] == before["judge calls"] + 2 * paper_build.JUDGE_ORDERS * len(
        sources
    )
    # Copying again to the same total writes nothing.
    assert paper_copies.copy_pairs(after["pairs"], started=0.0) == 0
