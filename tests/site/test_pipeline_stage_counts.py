"""The pipeline's counts that are read by aggregating in the database (issue #34: the page
at the paper's scale): an evaluation run's unanswered items and failed calls, and which
characters wait for memory generation, stay what the page showed before, and reading
them takes the same queries however many rows there are."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from adjudication.mcq.models import McqItem
from evaluation.models import EvaluationPrediction, EvaluationRun, Setting
from heartbench_site.pipeline import pipeline_overview
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
    unused_character,
)
from tests.memory_generation.run_rows import plan_for

pytestmark = pytest.mark.django_db

FROZEN = datetime(2026, 1, 5, tzinfo=UTC)


def stage(key):
    return next(s for s in pipeline_overview().stages if s.key == key)


def items(n: int) -> list[McqItem]:
    character = CharacterFactory()
    out = []
    for i in range(n):
        scenario = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{8000 + McqItem.objects.count()}")
        out.append(
            McqItem.objects.create(
                question_id=f"Q_{character.key}_{i}_{scenario.scenario_id}",
                character=character,
                scenario=scenario,
                stage=scenario.stage,
                correct_answer="B",
                status=McqItem.Status.FINAL,
            )
        )
    return out


def run_with(label: str, status: str, statuses: list[str]) -> EvaluationRun:
    run = EvaluationRun.objects.create(
        label=label,
        setting=Setting.NO_RETRIEVAL,
        status=status,
        created_by=UserFactory(),
    )
    for item, prediction_status in zip(items(len(statuses)), statuses, strict=True):
        EvaluationPrediction.objects.create(run=run, item=item, status=prediction_status)
    return run


def test_evaluation_runs_show_their_unanswered_items_and_failed_calls():
    running = run_with("sim-a", "running", ["pending", "running", "pending", "answered", "failed"])
    failing = run_with("sim-b", "finished_with_failures", ["failed", "failed", "answered"])
    clean = run_with("sim-c", "finished", ["answered", "answered"])
    evaluation = stage("evaluation")
    tallies = {t.label: t.value for t in evaluation.tallies}
    assert tallies == {"runs finished or imported": 2, "runs": 3}
    assert [b.text for b in evaluation.blockers] == [
        # Unanswered: waiting or running, not the failed call nor the answered one.
        f"Evaluation run #{running.pk} (sim-a) is running: 3 items unanswered.",
        f"2 calls of evaluation run #{failing.pk} (sim-b) failed: resume the run (admin).",
    ]
    assert not any(f"#{clean.pk} " in b.text for b in evaluation.blockers)


def test_a_frozen_character_waits_for_memory_generation_until_it_has_memories_or_a_plan():
    plan_for("CHAR_48")  # frozen, no memories, but planned
    # Keys no row holds: a wrapped factory key could otherwise hand back CHAR_48.
    waiting, remembered = unused_character(), unused_character()
    for character in (waiting, remembered):
        ProfileVersionFactory(character=character, number=1, frozen_at=FROZEN)
    for _ in range(3):
        MemoryFactory(character=remembered)
    texts = [b.text for b in stage("memory_generation").blockers]
    assert texts == [f"{waiting.key}: frozen profile, no memories and no plan (admin)."]
    MemoryFactory(character=waiting)
    assert not stage("memory_generation").blockers


def test_reading_the_stages_takes_the_same_queries_with_ten_times_the_rows():
    run_with("sim-a", "running", ["pending", "failed", "answered"])
    character = CharacterFactory()
    MemoryFactory(character=character)
    pipeline_overview()
    with CaptureQueriesContext(connection) as small:
        pipeline_overview()
    for n in range(10):
        run_with(f"sim-{n}", "finished", ["answered", "failed", "answered"])
        for _ in range(5):
            MemoryFactory(character=character)
    with CaptureQueriesContext(connection) as large:
        evaluation = stage("evaluation")
    assert len(large) == len(small)
    assert {t.label: t.value for t in evaluation.tallies}["runs"] == 11
