"""Creating, starting, cancelling and retrying generation runs; prompt versions."""

import pytest
from django.db import connection

from annotation.generation.models import (
    GenerationRun,
    GenerationUnit,
    PromptVersion,
    PromptVersionInUseError,
)
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_cancel,
    generation_run_create,
    generation_run_retry_failed,
    generation_run_start,
    prompt_version_create,
)
from annotation.generation.services.units import generation_unit_execute
from llm.testing.replies import server_error
from tests.factories import UserFactory

from .helpers import frozen_character, scenario

pytestmark = pytest.mark.django_db


def test_a_run_creates_one_unit_per_pair_and_family_up_front(providers):
    frozen_character("CHAR_01", ages=[6])
    frozen_character("CHAR_02", ages=[6])
    frozen_character("CHAR_03", ages=[6])
    for n in (1, 2):
        scenario(f"SCN_SCHOOL_AGE_{n}")

    run = generation_run_create(
        user=UserFactory(),
        families=["gemini", "claude"],
        characters=["CHAR_01", "CHAR_02"],
        note="subset",
    )

    assert run.status == GenerationRun.Status.PENDING
    assert run.families == ["claude", "gemini"]
    assert run.pair_filter == {"characters": ["CHAR_01", "CHAR_02"]}
    assert run.models == {"claude": "fake-claude-response", "gemini": "fake-gemini-response"}
    assert {(u.character.key, u.scenario.scenario_id, u.family) for u in run.units.all()} == {
        (c, s, f)
        for c in ("CHAR_01", "CHAR_02")
        for s in ("SCN_SCHOOL_AGE_1", "SCN_SCHOOL_AGE_2")
        for f in ("claude", "gemini")
    }
    assert all(u.profile_version.is_frozen for u in run.units.all())
    assert [run.screening_prompt.number, run.response_prompt.number] == [3, 3]  # the latest


def test_the_latest_frozen_profile_version_is_used_not_a_newer_draft(providers):
    character = frozen_character("CHAR_01", ages=[6])
    frozen = character.versions.get()
    character.versions.create(
        **{
            f: getattr(frozen, f)
            for f in ("construction_label", "occupation", "openness", "conscientiousness")
        },
        extraversion=0.1,
        agreeableness=0.2,
        neuroticism=0.3,
        description="a draft under review",
        self_value_logic="draft",
        core_patterns=frozen.core_patterns,
        number=2,
    )
    scenario()

    run = generation_run_create(user=UserFactory(), families=["claude"])

    assert run.units.get().profile_version == frozen


def test_an_unfrozen_profile_is_refused_naming_the_characters(providers):
    frozen_character("CHAR_01", ages=[6])
    frozen_character("CHAR_02", ages=[6], frozen=False)
    frozen_character("CHAR_03", ages=[6], frozen=False)
    scenario()

    with pytest.raises(GenerationError) as refused:
        generation_run_create(user=UserFactory(), families=["claude"])

    message = str(refused.value)
    assert "2 of the 3 chosen pairs are not ready" in message
    assert "CHAR_02: no frozen profile version" in message
    assert "CHAR_03: no frozen profile version" in message
    assert "CHAR_01" not in message
    assert not GenerationRun.objects.exists()


def test_unknown_and_unconfigured_families_are_refused(settings, providers):
    frozen_character(ages=[6])
    scenario()
    with pytest.raises(GenerationError, match="Unknown model family llama"):
        generation_run_create(user=UserFactory(), families=["claude", "llama"])
    with pytest.raises(GenerationError, match="at least one model family"):
        generation_run_create(user=UserFactory(), families=[])
    settings.HEARTBENCH_GENERATION_FAMILIES = {"claude": providers["claude"]}
    with pytest.raises(GenerationError, match="HEARTBENCH_GPT_API_KEY"):
        generation_run_create(user=UserFactory(), families=["claude", "gpt"])


def test_unknown_characters_or_scenarios_are_refused(providers):
    frozen_character(ages=[6])
    scenario()
    with pytest.raises(GenerationError, match="Unknown character CHAR_77"):
        generation_run_create(user=UserFactory(), families=["gpt"], characters=["CHAR_77"])
    with pytest.raises(GenerationError, match="Unknown scenario SCN_X_1"):
        generation_run_create(user=UserFactory(), families=["gpt"], scenarios=["SCN_X_1"])


def test_start_queues_every_unit_on_commit(providers, django_capture_on_commit_callbacks):
    frozen_character(ages=[6])
    scenario()
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt"])

    with django_capture_on_commit_callbacks() as callbacks:
        generation_run_start(run_id=run.pk)

    assert len(callbacks) == 1  # one callback sends every unit's task
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.RUNNING and run.started_at is not None
    with pytest.raises(GenerationError, match="only a run that has not started"):
        generation_run_start(run_id=run.pk)


def test_cancel_stops_pending_units_and_makes_no_calls(providers, fake_server):
    frozen_character(ages=[6, 7])
    scenario()
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=run.pk)
    first, *rest = run.units.order_by("pk")
    generation_unit_execute(unit_id=first.pk)
    calls_before = len(fake_server.requests)

    generation_run_cancel(run_id=run.pk)
    for unit in rest:  # the queued tasks arrive after the cancellation
        generation_unit_execute(unit_id=unit.pk)

    assert len(fake_server.requests) == calls_before
    statuses = dict(run.units.values_list("pk", "status"))
    assert statuses[first.pk] == GenerationUnit.Status.SUCCEEDED
    assert {statuses[u.pk] for u in rest} == {GenerationUnit.Status.CANCELLED}
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.CANCELLED and run.finished_at is not None
    with pytest.raises(GenerationError, match="was cancelled"):
        generation_run_retry_failed(run_id=run.pk)


@pytest.mark.django_db(transaction=True)
def test_a_unit_in_flight_stops_at_the_next_stage_boundary(providers, fake_server, script):
    frozen_character(ages=[6, 7])
    scenario()
    run = generation_run_create(user=UserFactory(), families=["claude"])
    generation_run_start(run_id=run.pk)
    unit = run.units.get()

    def cancel_during_screening(offered):
        # An admin clicks Cancel while the screening call is in flight (this runs in the
        # fake server's thread, on its own database connection).
        try:
            generation_run_cancel(run_id=run.pk)
        finally:
            connection.close()
        return offered

    script.screen = cancel_during_screening
    generation_unit_execute(unit_id=unit.pk)

    unit.refresh_from_db()
    assert unit.status == GenerationUnit.Status.CANCELLED
    assert unit.stage_reached == "screening"  # the screening result that arrived is kept
    assert len(fake_server.requests) == 1
    assert not unit.calls.filter(stage="response").exists()
    run.refresh_from_db()
    assert run.status == GenerationRun.Status.CANCELLED


def test_progress_counts_units_per_family_status_and_stage(providers, script):
    frozen_character(ages=[6, 7])
    scenario()
    run = generation_run_create(user=UserFactory(), families=["claude", "gpt", "gemini"])
    generation_run_start(run_id=run.pk)
    claude, gemini, gpt = run.units.order_by("family")
    generation_unit_execute(unit_id=claude.pk)

    script.always["response"] = server_error(500)
    generation_unit_execute(unit_id=gpt.pk)

    progress = generation_run_progress(run_id=run.pk)

    assert progress["total"] == 3 and progress["finished"] == 2
    assert progress["by_family"]["claude"]["succeeded"] == 1
    assert progress["by_family"]["gpt"]["failed"] == 1
    assert progress["by_family"]["gemini"]["pending"] == 1
    assert progress["by_stage"]["screening"]["done"] == 2
    assert progress["by_stage"]["response"] == {"done": 1, "running": 0, "failed": 1}
    assert progress["by_family_stage"]["gpt"]["response"]["failed"] == 1
    assert progress["reranking_skipped"] == 2
    assert progress["tokens_in"] > 0 and progress["estimated_cost_usd"] > 0
    assert progress["status"] == GenerationRun.Status.RUNNING
    assert generation_run_progress(run_id=run.pk)["total"] == 3


def test_a_prompt_used_by_a_run_cannot_change_and_edits_make_the_next_version(providers):
    frozen_character(ages=[6])
    scenario()
    screening = PromptVersion.objects.filter(stage="screening").latest("number")
    screening.note = "still unused, may change"
    screening.save()
    generation_run_create(user=UserFactory(), families=["claude"])

    screening.system_template += " Be brief."
    with pytest.raises(PromptVersionInUseError, match="create the next version"):
        screening.save()

    edited = prompt_version_create(
        stage="screening",
        system_template=screening.system_template,
        user_template=screening.user_template,
        note="shorter",
    )
    assert edited.number == screening.number + 1
    run = generation_run_create(user=UserFactory(), families=["claude"])
    assert run.screening_prompt == edited
    with pytest.raises(GenerationError, match=r"Unknown placeholder \{target\}"):
        prompt_version_create(stage="screening", system_template="{target}", user_template="x")
