"""The memory generation demo: a labelled stand-in character with a frozen profile, a
plan with a small quota and a finished run whose memories wait for the audit."""

import pytest
from django.urls import reverse

from annotation.corpus.models import Memory
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.memory_storage import parse_memory_storage
from annotation.memory_generation.demo import DEMO_QUOTA, demo_memory_generation
from annotation.memory_generation.models import GeneratedMemory, MemoryBatch, MemoryRun
from annotation.memory_generation.storage import serialize

pytestmark = pytest.mark.django_db


def test_the_demo_makes_a_finished_run_of_a_labelled_generated_character(
    admin_user, admin_client, demo_providers, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = demo_memory_generation(user=admin_user)
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.FINISHED
    (plan,) = run.plans.all()
    profile = plan.profile_version
    assert profile.is_demo_standin and profile.is_frozen
    assert plan.deficit == DEMO_QUOTA
    memories = list(Memory.objects.filter(character=plan.character).order_by("sequence"))
    assert len(memories) == DEMO_QUOTA
    assert all(m.is_demo_standin for m in memories)
    assert GeneratedMemory.objects.filter(batch__run=run).count() == DEMO_QUOTA
    # every batch lies in one bin and every slot is filled once
    for batch in MemoryBatch.objects.filter(run=run):
        assert batch.status == MemoryBatch.Status.SUCCEEDED
        assert batch.last_age - batch.first_age <= 4
        assert batch.memories.count() == len(batch.slots)
    for m in memories:
        assert m.source.startswith(f"generated: run {run.pk}, batch ")
        assert m.source.endswith(", memory prompt v1, offline-demo")
        assert 2000 <= len(m.content_full) <= 4500
        assert f"({m.event_age} years old)" in m.timeline
    # the memories come back exactly through the importer's parser
    corpus = ParsedCorpus()
    parse_memory_storage("demo.txt", serialize(memories), corpus)
    assert corpus.problems == [] and len(corpus.memories) == DEMO_QUOTA
    # the run's page shows it complete
    body = admin_client.get(reverse("memory_generation:run-detail", args=[run.pk])).content.decode()
    assert f'data-testid="slots-filled">{DEMO_QUOTA}<' in body
    assert 'data-status="finished"' in body


def test_the_demo_is_idempotent(admin_user, demo_providers, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = demo_memory_generation(user=admin_user)
    assert demo_memory_generation(user=admin_user) == first
    assert MemoryRun.objects.count() == 1 and Memory.objects.count() == DEMO_QUOTA
