"""The screening judge reads the frozen profile (seed 000 App. D.3.1): for a reference with
no source candidate (an expert rewrite), a later unfrozen draft of the character's profile
must not reach the judge in place of the profile the benchmark froze."""

from datetime import UTC, datetime

import pytest

from adjudication.mcq.services import item_assembly, item_screening
from annotation.corpus.models import ProfileVersion
from llm.testing.replies import json_reply
from tests.factories import ProfileVersionFactory

from .conftest import verdict

pytestmark = pytest.mark.django_db

FROZEN = "Keeps every promise to a teacher, whatever the cost to a weekend."
DRAFT = "An unreviewed redraft: restless, breaks promises for fun."


def test_the_judge_gets_the_frozen_profile_not_a_later_draft(references, judge):
    """Seed 000 App. D.3.1: the judge weighs the options against the character's profile;
    that is the frozen one, even when a later unfrozen version exists."""
    character = references["CHAR_01"].character
    ProfileVersion.objects.filter(character=character, number=1).update(
        description=FROZEN, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
    )
    ProfileVersionFactory(character=character, number=2, description=DRAFT)
    item = item_assembly.mcq_item_assemble(reference_id=references["CHAR_01"].pk, selector=False)
    assert item.reference.source_candidate is None
    judge.enqueue(json_reply(verdict(item)))

    item_screening.mcq_screening_run(item_id=item.pk)

    (request,) = judge.requests
    prompt = [text for role, text in request.turns() if role == "user"][-1]
    assert FROZEN in prompt
    assert DRAFT not in prompt
    assert item_screening.screening_materials(item)["character_profile"]["description"] == FROZEN
