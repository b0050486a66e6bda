"""The baseline's stored retrieval sets come from the audited corpus (issue #18, point 2;
App. B.6's last step): a memory the finalized audit left out never reaches a participant.

This reads what ``study_create`` stores through ``evaluation.retrieval.retrieve_for_item``,
so it holds once that retriever reads ``audited_memories``."""

import pytest

from annotation.corpus.models import Memory
from audit.memory_quality.models import AuditRun, TimelineEntry
from audit.memory_quality.services.configuration import audit_settings_create
from audit.memory_quality.services.finalize import audit_run_finalize
from evaluation.models import RetrievedMemory
from humanbaseline import services
from humanbaseline.models import StudyItem
from tests.factories import MemoryFactory, UserFactory

from .conftest import build_items, direct_selection

pytestmark = pytest.mark.django_db


def test_a_duplicate_the_audit_left_out_is_in_no_study_items_retrieval_set(role_groups):
    items = build_items(2, 3)  # the third scenario holds the practice item
    character = items[0].character
    original = Memory.objects.get(character=character, sequence=1)
    duplicate = MemoryFactory(
        character=character,
        sequence=9,
        event_age=11,  # later than the original: the audit keeps the earliest
        content_full=original.content_full,
    )
    run = AuditRun.objects.create(
        settings_version=audit_settings_create(created_by=None),
        status=AuditRun.Status.FINISHED,
    )
    audit_run_finalize(run_id=run.pk, actor=None)
    assert duplicate.memory_id in AuditRun.objects.get(pk=run.pk).summary["deduplicated"]
    assert not TimelineEntry.objects.filter(run=run, memory=duplicate).exists()

    admin = UserFactory()
    subset = [i for i in items[:4] if i.character_id == character.pk]
    practice = items[4:5]  # a scenario the subset does not use
    study = services.study_create(
        user=admin,
        name="Audited corpus",
        selection=direct_selection(subset, user=admin),
        consent_version="v1",
        consent_text="Consent.",
        briefing="Briefing.",
        practice_question_ids=[i.question_id for i in practice],
    )
    sets = StudyItem.objects.filter(study=study, item__character=character).values("retrieval_set")
    retrieved = set(
        RetrievedMemory.objects.filter(retrieval_set__in=sets).values_list("memory_id", flat=True)
    )
    assert original.pk in retrieved  # the retrieval sets are not empty
    assert duplicate.pk not in retrieved
