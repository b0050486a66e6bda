"""What one generation unit costs the database per LLM call (issue #34).

Most of a worker's CPU per call is Django building the statements and psycopg sending
them, so the number of statements a unit makes is its CPU budget: these tests hold it
to a ceiling (counted with BEGIN and COMMIT, as a worker in autocommit sends them), so a
change that adds a write or a re-read per call fails here before it shows in
``benchmarks/generation.py``.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.generation.models import Candidate, GenerationUnit, LlmCallRecord
from annotation.generation.services.runs import generation_run_create, generation_run_start
from annotation.generation.services.units import generation_unit_execute
from tests.factories import UserFactory

from .helpers import frozen_character, scenario, stage_of

# Statements per unit as measured when the ceilings were set, the run's own finish
# included (8 of them: the unit here is its run's last). A unit that is not the last
# makes 17 for two calls where it made 36 before (10.7 ms of CPU per call then): a
# skipped re-ranking makes no call, so the run's status is not read again after it.
# The hot statements are plain SQL written once, so no ORM compiles them per call.
# Issue #36 added one statement per unit (not per call): the claim reads the monthly
# spending caps of the run's providers.
TWO_CALL_UNIT_CEILING = 25
THREE_CALL_UNIT_CEILING = 29


def _executed_unit(**run_kwargs):
    run = generation_run_create(user=UserFactory(), families=["claude"], **run_kwargs)
    generation_run_start(run_id=run.pk)
    unit_id = run.units.get().pk
    with CaptureQueriesContext(connection) as ctx:
        unit = generation_unit_execute(unit_id=unit_id)
    return unit, [q["sql"] for q in ctx.captured_queries]


@pytest.mark.django_db(transaction=True)
def test_a_unit_without_reranking_stays_within_its_statement_ceiling(providers, fake_server):
    frozen_character(ages=[6, 7, 8])
    scenario(age=10)

    unit, statements = _executed_unit()

    # The unit did its whole job: screened, skipped re-ranking, answered, recorded.
    assert [stage_of(r) for r in fake_server.requests] == ["screening", "response"]
    stored = GenerationUnit.objects.get(pk=unit.pk)
    assert stored.status == GenerationUnit.Status.SUCCEEDED
    assert stored.stage_reached == "response" and stored.attempts == 1
    assert stored.reranking_skipped is True
    assert len(stored.activated_memory_ids) == 3
    records = list(LlmCallRecord.objects.filter(unit=stored).order_by("pk"))
    assert [r.stage for r in records] == ["screening", "response"]
    assert stored.tokens_in == sum(r.tokens_in for r in records) > 0
    candidate = Candidate.objects.get(unit=stored)
    assert candidate.activated_memory_ids == stored.activated_memory_ids
    assert candidate.profile_version_id == stored.profile_version_id
    # The object returned is the stored unit, not a stale copy.
    assert (unit.status, unit.stage_reached, unit.attempts) == (
        stored.status,
        stored.stage_reached,
        stored.attempts,
    )
    assert len(statements) <= TWO_CALL_UNIT_CEILING, "\n".join(statements)
    # Nothing per call re-reads the whole memory rows: the prompts never show the full
    # text, so no statement asks for it.
    assert not any('"content_full"' in sql for sql in statements)


@pytest.mark.django_db(transaction=True)
def test_a_unit_with_reranking_stays_within_its_statement_ceiling(providers, fake_server):
    frozen_character(ages=[6] * 60)
    scenario(age=10)

    unit, statements = _executed_unit()

    assert [stage_of(r) for r in fake_server.requests] == ["screening", "reranking", "response"]
    stored = GenerationUnit.objects.get(pk=unit.pk)
    assert stored.status == GenerationUnit.Status.SUCCEEDED
    assert stored.reranking_skipped is False and len(stored.activated_memory_ids) == 50
    assert Candidate.objects.get(unit=stored).activated_memory_ids == stored.activated_memory_ids
    assert len(statements) <= THREE_CALL_UNIT_CEILING, "\n".join(statements)
    assert not any('"content_full"' in sql for sql in statements)
