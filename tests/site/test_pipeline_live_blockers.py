"""Issue 32: the pipeline page lists only live blockers. A failed draft stops blocking
once its character was drafted (or imported) or its redraft can no longer apply; a pair
sent back for regeneration counts as decided when its next round is; an unfinalized
audit run that a later finalized run replaced blocks nothing."""

from datetime import UTC, datetime

import pytest

from annotation.character_drafting.models import CharacterDraft, DraftingJob
from annotation.character_drafting.services.jobs import drafting_prompt_current
from annotation.comparison.models import ComparisonPair
from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services.configuration import audit_settings_create
from core.roles import Role
from heartbench_site.pipeline import pipeline_overview
from tests.comparison.helpers import make_pair
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory, UserFactory

pytestmark = pytest.mark.django_db

FROZEN = datetime(2026, 1, 5, tzinfo=UTC)


def stage(key):
    return next(s for s in pipeline_overview().stages if s.key == key)


def blocker_texts(key) -> list[str]:
    return [b.text for b in stage(key).blockers]


def tallies(key) -> dict[str, int]:
    return {t.label: t.value for t in stage(key).tallies}


def failed_draft(char_key, *, redraft_of=None, kind=DraftingJob.Kind.DRAFT):
    job = DraftingJob.objects.create(
        kind=kind,
        design=DraftingJob.Design.CUSTOM,
        provider="openai",
        model="m",
        prompt=drafting_prompt_current(),
        max_attempts=3,
        status=DraftingJob.Status.FINISHED,
    )
    CharacterDraft.objects.create(
        job=job,
        char_key=char_key,
        planned={},
        redraft_of=redraft_of,
        status=CharacterDraft.Status.FAILED,
        error_kind="invalid_profile",
    )
    return job


def test_a_failed_redraft_stops_blocking_once_a_later_version_exists_or_is_frozen():
    character = CharacterFactory(key="CHAR_31")
    v1 = ProfileVersionFactory(character=character, number=1)
    job = failed_draft("CHAR_31", redraft_of=v1, kind=DraftingJob.Kind.REDRAFT)
    live = f"Drafting job #{job.pk}: 1 draft failed"
    assert any(live in text for text in blocker_texts("characters"))
    # Drafted again by another job, then frozen: the failure is history.
    v2 = ProfileVersionFactory(character=character, number=2)
    assert not any(live in text for text in blocker_texts("characters"))
    v2.frozen_at = FROZEN
    v2.save()
    assert not any(f"#{job.pk}" in text for text in blocker_texts("characters"))
    # A failed redraft of the latest version, frozen meanwhile, cannot be retried either.
    frozen_latest = failed_draft("CHAR_31", redraft_of=v2, kind=DraftingJob.Kind.REDRAFT)
    assert not any(f"#{frozen_latest.pk}" in text for text in blocker_texts("characters"))


def test_a_failed_first_draft_blocks_until_its_character_exists():
    job = failed_draft("CHAR_32")
    assert any(f"Drafting job #{job.pk}: 1 draft failed" in t for t in blocker_texts("characters"))
    CharacterFactory(key="CHAR_32")  # drafted by a later job, or imported
    assert not any(f"#{job.pk}" in t for t in blocker_texts("characters"))


def test_a_regenerated_pair_whose_next_round_is_adopted_counts_as_decided():
    first = make_pair(key="CHAR_33")
    first.status = ComparisonPair.Status.REGENERATING
    first.save()
    assert tallies("adjudication")["pairs decided"] == 0
    assert any("sent back for regeneration" in t for t in blocker_texts("adjudication"))
    second = ComparisonPair.objects.create(
        character=first.character,
        scenario=first.scenario,
        profile_version=first.profile_version,
        round=2,
        previous_round=first,
        status=ComparisonPair.Status.ADOPTED,
    )
    assert blocker_texts("adjudication") == []
    counted = tallies("adjudication")
    assert counted["pairs decided"] == counted["adopted unanimously"] == 1
    assert counted["decided in a round after regeneration"] == 1
    judged = tallies("judging")
    assert judged["pairs in comparison"] == judged["pairs judged by all three annotators"] == 1
    assert second.pk  # the round that decided it


def test_an_audit_run_replaced_by_a_later_finalized_run_blocks_nothing():
    character = CharacterFactory(key="CHAR_34")
    memory = MemoryFactory(character=character, sequence=1)
    version = audit_settings_create(created_by=None)
    stale = AuditRun.objects.create(
        settings_version=version, character_keys=["CHAR_34"], status="finished"
    )
    MemoryCase.objects.create(
        run=stale, memory=memory, character=character, status=MemoryCase.Status.SENIOR
    )
    assert any(f"run #{stale.pk}" in t for t in blocker_texts("memories"))
    AuditRun.objects.create(
        settings_version=version,
        character_keys=["CHAR_34"],
        status="finished",
        finalized_at=FROZEN,
    )
    assert not any(f"run #{stale.pk}" in t for t in blocker_texts("memories"))


def test_a_failed_generation_unit_stops_blocking_once_a_later_unit_succeeded(settings):
    from annotation.generation.models import GenerationRun, GenerationUnit
    from annotation.generation.services.runs import generation_run_create
    from llm.testing.fake_server import FakeProviderServer
    from tests.generation.helpers import family_settings, frozen_character, scenario

    admin = UserFactory(roles=[Role.ADMIN])
    frozen_character("CHAR_35", ages=[6, 7])
    scenario("SCN_SCHOOL_AGE_35", age=10)
    with FakeProviderServer() as server:
        settings.HEARTBENCH_GENERATION_FAMILIES = family_settings(server, families=("gpt",))
        first = generation_run_create(user=admin, families=["gpt"])
        GenerationUnit.objects.filter(run=first).update(status=GenerationUnit.Status.FAILED)
        GenerationRun.objects.filter(pk=first.pk).update(status=GenerationRun.Status.FINISHED)
        failed = f"1 unit of generation run #{first.pk} failed"
        assert any(failed in t for t in blocker_texts("generation"))
        second = generation_run_create(user=admin, families=["gpt"])
        GenerationUnit.objects.filter(run=second).update(status=GenerationUnit.Status.SUCCEEDED)
        GenerationRun.objects.filter(pk=second.pk).update(status=GenerationRun.Status.FINISHED)
    assert not any(f"run #{first.pk}" in t for t in blocker_texts("generation"))
