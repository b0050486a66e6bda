"""The demo's generation run: offline demo provider, Celery eager, idempotent."""

import pytest
from django.utils import timezone

from annotation.corpus.models import ProfileVersion
from annotation.generation import prompts
from annotation.generation.demo import DEMO_OVERRIDE_REASON, DEMO_RUN_NOTE, demo_generation
from annotation.generation.models import Candidate, GenerationRun
from annotation.generation.selectors import generation_run_progress
from annotation.generation.services.runs import GenerationError
from core.deviations import ProtocolDeviation
from llm import ProviderConfig
from llm.demo import OfflineDemoClient
from llm.demo.answers import DemoSettings
from tests.factories import UserFactory

from .helpers import frozen_character, scenario

pytestmark = pytest.mark.django_db


def test_demo_generation_freezes_standins_and_runs_once(
    demo_providers, django_capture_on_commit_callbacks
):
    for key in ("CHAR_01", "CHAR_02", "CHAR_03"):
        frozen_character(key, ages=[6, 7, 8], frozen=False, audited=False)
    ProfileVersion.objects.update(is_demo_standin=True)
    for n in (1, 2, 3):
        scenario(f"SCN_SCHOOL_AGE_{n}", age=10, reviewed=False)
    user = UserFactory()

    with django_capture_on_commit_callbacks(execute=True):
        run = demo_generation(user=user)

    run.refresh_from_db()
    assert run.note == DEMO_RUN_NOTE
    assert run.status == GenerationRun.Status.FINISHED, generation_run_progress(run_id=run.pk)
    assert run.units.count() == 2 * 2 * 3
    assert Candidate.objects.filter(run=run).count() == 12
    assert all(c.final_decision.startswith("[offline demo provider]") for c in run.candidates.all())
    assert ProfileVersion.objects.filter(frozen_at__isnull=False).count() == 2
    # The demo passes the review and audit gates by an override, recorded for the manifest:
    # each of the 4 pairs waits for its scenario's review and its character's audit.
    overrides = ProtocolDeviation.objects.filter(kind="gate_override")
    assert overrides.count() == 4 * 2
    assert all(d.reason == DEMO_OVERRIDE_REASON and d.recorded_by == user for d in overrides)
    assert sorted(
        ProtocolDeviation.objects.filter(kind="unaudited_memories").values_list(
            "subject", flat=True
        )
    ) == ["CHAR_01", "CHAR_02"]
    assert demo_generation(user=user) == run
    assert GenerationRun.objects.count() == 1
    assert ProtocolDeviation.objects.count() == 4 * 2 + 2


def test_demo_generation_refuses_a_real_provider(settings, providers):
    frozen_character(ages=[6])
    ProfileVersion.objects.update(is_demo_standin=True, frozen_at=timezone.now())
    scenario()
    with pytest.raises(GenerationError, match="offline demo provider only"):
        demo_generation(user=UserFactory())


def test_the_demo_comparison_gets_three_different_candidates_per_pair(
    demo_providers, django_capture_on_commit_callbacks
):
    """What the comparison page of the demo shows: the three families' candidates for one
    pair differ, pairs differ from each other, and the same seed gives the same text."""
    for key in ("CHAR_01", "CHAR_02"):
        frozen_character(key, ages=[6, 7, 8], frozen=False)
    ProfileVersion.objects.update(is_demo_standin=True)
    for n in (1, 2):
        scenario(f"SCN_SCHOOL_AGE_{n}", age=10)
    with django_capture_on_commit_callbacks(execute=True):
        run = demo_generation(user=UserFactory())

    by_pair = {}
    for candidate in run.candidates.select_related("character", "scenario"):
        by_pair.setdefault((candidate.character.key, candidate.scenario.scenario_id), []).append(
            candidate
        )
    assert len(by_pair) == 4
    for pair, candidates in by_pair.items():
        assert sorted(c.family for c in candidates) == ["claude", "gemini", "gpt"], pair
        assert len({c.final_decision for c in candidates}) == 3, pair
        assert len({c.summary for c in candidates}) == 3, pair
        assert len({c.model_name for c in candidates}) == 3, pair
    # Another persona or another scenario: another answer from the same family.
    claude = {pair: next(c for c in cs if c.family == "claude") for pair, cs in by_pair.items()}
    assert len({c.final_decision for c in claude.values()}) == 4

    # The same seed (the default, 0) repeats a candidate word for word from its prompt.
    candidate = claude[("CHAR_01", "SCN_SCHOOL_AGE_1")]
    call = candidate.unit.calls.get(stage="response")
    again = OfflineDemoClient(
        ProviderConfig(kind="offline_demo", model=candidate.model_name),
        settings=DemoSettings(seed=0),
    ).complete_json(
        system=call.request["system"], user=call.request["user"], schema=prompts.RESPONSE_SCHEMA
    )
    assert again.parsed["final_decision"] == candidate.final_decision
