"""The three stages of a unit against the fake provider over real HTTP (App. D.1, L.5)."""

import pytest

from annotation.corpus.models import Memory
from annotation.generation.celery_tasks import execute_generation_unit
from annotation.generation.models import Candidate, GenerationRun, GenerationUnit, LlmCallRecord
from annotation.generation.prompts import ACTIVATED_MEMORY_LIMIT, SCREENING_BATCH_SIZE
from annotation.generation.services.runs import (
    generation_run_create,
    generation_run_retry_failed,
    generation_run_start,
)
from annotation.generation.services.units import generation_unit_execute
from llm.testing.replies import server_error
from tests.factories import UserFactory

from .helpers import frozen_character, offered_ids, scenario, stage_of

pytestmark = pytest.mark.django_db


def started_run(families=("claude",), **kwargs):
    run = generation_run_create(user=UserFactory(), families=list(families), **kwargs)
    generation_run_start(run_id=run.pk)
    return run


def test_only_memories_at_or_before_the_scenario_age_are_offered(providers, fake_server):
    frozen_character("CHAR_01", ages=[6, 9, 10, 11, 30])
    frozen_character("CHAR_02", ages=[7, 40])
    scenario("SCN_SCHOOL_AGE_1", age=10)
    scenario("SCN_EARLY_ADULTHOOD_1", age=30)
    run = started_run()

    for unit in run.units.all():
        generation_unit_execute(unit_id=unit.pk)

    eligible = {
        (u.character.key, u.scenario.scenario_id): u.eligible_memory_ids for u in run.units.all()
    }
    assert eligible == {
        ("CHAR_01", "SCN_SCHOOL_AGE_1"): [f"MEM_CHAR_01_N_HIGH_{n:04d}" for n in (1, 2, 3)],
        ("CHAR_01", "SCN_EARLY_ADULTHOOD_1"): [
            f"MEM_CHAR_01_N_HIGH_{n:04d}" for n in (1, 2, 3, 4, 5)
        ],
        ("CHAR_02", "SCN_SCHOOL_AGE_1"): ["MEM_CHAR_02_N_HIGH_0001"],
        ("CHAR_02", "SCN_EARLY_ADULTHOOD_1"): ["MEM_CHAR_02_N_HIGH_0001"],
    }
    # What the model was shown is the anonymized id of exactly those memories.
    shown = sorted(
        tuple(offered_ids(r)) for r in fake_server.requests if stage_of(r) == "screening"
    )
    assert shown == sorted(
        [
            ("MEM_CHAR_01_0001", "MEM_CHAR_01_0002", "MEM_CHAR_01_0003"),
            tuple(f"MEM_CHAR_01_{n:04d}" for n in (1, 2, 3, 4, 5)),
            ("MEM_CHAR_02_0001",),
            ("MEM_CHAR_02_0001",),
        ]
    )
    assert all("_N_HIGH_0" not in r.raw_body for r in fake_server.requests)  # no full ids


def test_fifty_or_fewer_survivors_skip_reranking_without_a_call(providers, fake_server, script):
    frozen_character(ages=[6] * 80)
    scenario(age=10)
    script.screen = lambda offered: offered[:ACTIVATED_MEMORY_LIMIT]  # exactly 50 survive
    run = started_run()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.status == GenerationUnit.Status.SUCCEEDED
    assert len(unit.eligible_memory_ids) == 80
    assert len(unit.screened_memory_ids) == 50
    assert unit.reranking_skipped is True
    assert unit.activated_memory_ids == unit.screened_memory_ids
    assert [r.stage for r in unit.calls.order_by("pk")] == ["screening", "response"]
    assert [stage_of(r) for r in fake_server.requests] == ["screening", "response"]
    assert Candidate.objects.get(unit=unit).activated_memory_ids == unit.activated_memory_ids


def test_more_than_fifty_survivors_are_reranked_to_at_most_fifty(providers, fake_server, script):
    frozen_character(ages=list(range(6, 16)) * 9)  # 90 memories, ages 6..15
    scenario(age=12)
    run = started_run()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert len(unit.eligible_memory_ids) == 63  # ages 6..12, 9 memories each
    assert len(unit.screened_memory_ids) == 63
    assert unit.reranking_skipped is False
    assert len(unit.activated_memory_ids) == ACTIVATED_MEMORY_LIMIT
    assert set(unit.activated_memory_ids) <= set(unit.screened_memory_ids)
    rerank = next(r for r in fake_server.requests if stage_of(r) == "reranking")
    assert rerank.schema()["properties"]["activated_memories"]["maxItems"] == 50
    assert len(offered_ids(rerank)) == 63
    # The response is written from the activated memories only, oldest first.
    response = next(r for r in fake_server.requests if stage_of(r) == "response")
    activated = Memory.objects.filter(memory_id__in=unit.activated_memory_ids)
    assert all(m.psych_conclusion in response.raw_body for m in activated)
    assert unit.calls.get(stage="reranking").ok


def test_a_reranking_answer_over_fifty_is_asked_again_then_accepted(providers, fake_server, script):
    frozen_character(ages=[6] * 70)
    scenario(age=10)
    too_many = {
        "activated_memories": [
            {"memory_id": f"MEM_CHAR_01_{n:04d}", "type": "BS", "reason": "r"} for n in range(1, 61)
        ]
    }
    script.faults["reranking"] = [too_many]
    run = started_run()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    call = unit.calls.get(stage="reranking")
    assert call.ok and call.details["rounds"] == 2
    assert len(unit.activated_memory_ids) == 50


def test_very_many_eligible_memories_are_screened_in_batches(providers, fake_server, script):
    frozen_character(ages=[6] * (SCREENING_BATCH_SIZE * 2 + 50))
    scenario(age=10)
    script.screen = lambda offered: offered[:30]
    run = started_run()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    screening = [r for r in fake_server.requests if stage_of(r) == "screening"]
    assert len(screening) == 3
    offered = [offered_ids(r) for r in screening]
    assert sum(len(o) for o in offered) == SCREENING_BATCH_SIZE * 2 + 50
    assert len({i for o in offered for i in o}) == SCREENING_BATCH_SIZE * 2 + 50
    budgets = [int(r.raw_body.split("at most ")[1].split(".")[0]) for r in screening]
    assert 75 <= sum(budgets) <= 125  # App. L.5.1: aim at roughly 75-125 candidates
    assert len(unit.screened_memory_ids) == 90
    assert len(unit.activated_memory_ids) == 50


def test_invented_memory_ids_are_dropped(providers, script):
    frozen_character(ages=[6, 7])
    scenario(age=10)
    script.screen = lambda offered: [*offered, "MEM_CHAR_01_0999"]
    run = started_run()

    unit = generation_unit_execute(unit_id=run.units.get().pk)

    assert unit.screened_memory_ids == ["MEM_CHAR_01_N_HIGH_0001", "MEM_CHAR_01_N_HIGH_0002"]


def test_the_candidate_carries_the_response_and_its_provenance(providers, fake_server):
    frozen_character(ages=[6, 7])
    scenario(age=10)
    run = started_run(families=("claude", "gpt", "gemini"))

    for unit in run.units.all():
        generation_unit_execute(unit_id=unit.pk)

    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED
    assert Candidate.objects.filter(run=run).count() == 3
    candidate = Candidate.objects.get(run=run, family="gpt")
    assert candidate.model_name == "fake-gpt-response"
    assert candidate.origin == Candidate.Origin.GENERATED
    assert candidate.final_decision.startswith("I stay home")
    assert candidate.summary and candidate.emotional_tone and candidate.core_reasoning
    assert candidate.profile_version == candidate.unit.profile_version
    # the response prompt holds the frozen profile: Big Five, description, self-value logic
    response = next(
        r for r in fake_server.requests if r.route == "openai" and stage_of(r) == "response"
    )
    profile = candidate.profile_version
    for text in (profile.description, profile.self_value_logic, "Neuroticism 0.95"):
        assert text in response.raw_body
    records = LlmCallRecord.objects.filter(unit=candidate.unit).order_by("pk")
    assert [(r.stage, r.provider, r.model) for r in records] == [
        ("screening", "openai", "fake-gpt-activation"),
        ("response", "openai", "fake-gpt-response"),
    ]
    assert all(r.ok and r.prompt_hash and r.request and r.raw_response for r in records)
    assert candidate.unit.tokens_in == sum(r.tokens_in for r in records)
    assert candidate.unit.cost_usd > 0


def test_a_redelivered_task_changes_nothing_twice(providers, fake_server):
    frozen_character(ages=[6, 7])
    scenario(age=10)
    run = started_run()
    unit_id = run.units.get().pk

    execute_generation_unit(unit_id)  # the task body, as a worker runs it
    requests = len(fake_server.requests)
    execute_generation_unit(unit_id)
    generation_unit_execute(unit_id=unit_id)

    assert len(fake_server.requests) == requests
    assert Candidate.objects.filter(unit_id=unit_id).count() == 1
    assert GenerationUnit.objects.get(pk=unit_id).attempts == 1


def test_a_unit_resumes_at_the_stage_it_reached(providers, fake_server, script):
    frozen_character(ages=[6] * 60)
    scenario(age=10)
    run = started_run()
    unit = run.units.get()
    # A worker that died after storing screening and re-ranking: the unit row says so.
    generation_unit_execute(unit_id=unit.pk)
    Candidate.objects.filter(unit=unit).delete()
    GenerationUnit.objects.filter(pk=unit.pk).update(
        status=GenerationUnit.Status.RESPONDING, stage_reached="reranking"
    )
    GenerationRun.objects.filter(pk=run.pk).update(status=GenerationRun.Status.RUNNING)
    fake_server.reset()

    generation_unit_execute(unit_id=unit.pk)

    assert [stage_of(r) for r in fake_server.requests] == ["response"]
    assert Candidate.objects.filter(unit=unit).count() == 1


def test_a_screening_batch_answered_before_a_failure_is_not_asked_again(
    providers, fake_server, script
):
    frozen_character(ages=[6] * (SCREENING_BATCH_SIZE + 10))
    scenario(age=10)
    answered = []

    def first_batch_only(offered):
        if answered:
            return server_error(503)  # batch 2 fails on every try
        answered.append(offered)
        return offered[:5]

    script.screen = first_batch_only
    run = started_run()
    unit = run.units.get()

    generation_unit_execute(unit_id=unit.pk)

    unit.refresh_from_db()
    assert unit.status == GenerationUnit.Status.FAILED
    assert unit.error_kind == "server_error"
    assert unit.error_message.startswith("Screening (batch 2 of 2) failed after 3 requests")
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED_WITH_FAILURES

    script.screen = lambda offered: offered[:5]
    fake_server.reset()
    generation_run_retry_failed(run_id=run.pk)
    generation_unit_execute(unit_id=unit.pk)

    unit.refresh_from_db()
    assert unit.status == GenerationUnit.Status.SUCCEEDED
    assert [stage_of(r) for r in fake_server.requests] == ["screening", "response"]
    assert len(unit.screened_memory_ids) == 10
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.FINISHED
