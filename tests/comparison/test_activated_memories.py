"""The comparison page shows a candidate's activated memories from the audited corpus
only (issue #18 point 2, App. B.6): a duplicate the memory audit left out is not shown
to annotators, whatever the candidate cites."""

import pytest
from django.urls import reverse

from annotation.generation.models import Candidate
from tests.pipeline_ready import audit_leaving_out_a_copy

from .helpers import assign, make_pair, people

pytestmark = pytest.mark.django_db


def test_a_memory_the_audit_left_out_is_not_shown(client):
    who = people()
    pair = make_pair(key="CHAR_81", memories=3)
    original = pair.character.memories.get(sequence=1)
    copy = audit_leaving_out_a_copy(pair.character, original=original)
    for candidate in Candidate.objects.filter(pk__in=pair.candidates.all()):
        candidate.activated_memory_ids = [*candidate.activated_memory_ids, copy.memory_id]
        candidate.save()
    a = assign(pair, who["annotators"], who["admin"])[who["annotators"][0].pk]
    client.force_login(a.annotator)

    body = client.get(reverse("comparison:pair", kwargs={"assignment": a.public_id})).content
    body = body.decode()

    assert body.count("<li data-memory ") == 3 * 3  # the three audited memories, each
    assert f'data-memory-id="{original.memory_id}"' in body
    assert copy.memory_id not in body


def test_the_arbitrator_sees_no_memory_the_audit_left_out(client):
    """The arbitrator's page reads the same audited corpus as the annotators' page."""
    who = people()
    pair = make_pair(key="CHAR_82", memories=3)
    original = pair.character.memories.get(sequence=1)
    copy = audit_leaving_out_a_copy(pair.character, original=original)
    for candidate in Candidate.objects.filter(pk__in=pair.candidates.all()):
        candidate.activated_memory_ids = [*candidate.activated_memory_ids, copy.memory_id]
        candidate.save()
    client.force_login(who["arbitrator"])

    body = client.get(reverse("adjudication:pair", kwargs={"pair_id": pair.pk})).content
    body = body.decode()

    assert original.memory_id in body
    assert copy.memory_id not in body
