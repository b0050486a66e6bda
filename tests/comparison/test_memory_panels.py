"""The comparison page lists each activated memory by its summary line and loads the
memory's texts when its panel opens (issue #34): the page stays small and costs the same
queries with 120 memories as with 5, the panel's request answers the memory's texts to
the annotator assigned to the pair only, for a memory its candidates cite, and names
nothing that would unblind a candidate."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.generation.models import Candidate
from tests.factories import MemoryFactory, unused_character
from tests.pipeline_ready import audit_leaving_out_a_copy
from tests.web.test_generation_blinding import FAMILY_WORD

from .helpers import MODEL_NAMES, assign, make_pair, people

pytestmark = pytest.mark.django_db


def assigned(memories: int, key: str, who=None):
    """A pair whose three candidates each cite ``memories`` memories, assigned to three
    annotators: (the people, {annotator pk: assignment})."""
    who = who or people()
    pair = make_pair(key=key, memories=memories)
    return who, assign(pair, who["annotators"], who["admin"])


def page_of(client, assignment) -> str:
    url = reverse("comparison:pair", kwargs={"assignment": assignment.public_id})
    answer = client.get(url)
    assert answer.status_code == 200
    return answer.content.decode()


def memory_url(assignment, memory) -> str:
    return reverse(
        "comparison:memory",
        kwargs={"assignment": assignment.public_id, "memory_id": memory.memory_id},
    )


def test_the_page_lists_summary_lines_and_each_panel_loads_its_memory(client):
    who, by_annotator = assigned(120, "CHAR_91")
    mine = by_annotator[who["annotators"][0].pk]
    client.force_login(mine.annotator)
    body = page_of(client, mine)
    assert body.count("<li data-memory ") == 3 * 120
    # No memory's text is on the page; each panel names where its text is.
    assert "I remember the rain on the window." not in body
    memories = list(mine.pair.character.memories.order_by("sequence"))
    assert all(f'hx-get="{memory_url(mine, m)}"' in body for m in memories)
    assert 'hx-trigger="toggle once"' in body
    text = client.get(memory_url(mine, memories[42]), HTTP_HX_REQUEST="true")
    assert text.status_code == 200
    fragment = text.content.decode()
    assert "I remember the rain on the window. (43)" in fragment
    assert escape(memories[42].psych_conclusion) in fragment
    assert escape(memories[42].behavior_policy) in fragment
    assert "<html" not in fragment  # a fragment for the panel, not a page
    # The API's pair lists the memories by their summary lines, as before.
    token, _ = Token.objects.get_or_create(user=mine.annotator)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    pair = api.get(reverse("comparison-api:pair", kwargs={"assignment": mine.public_id})).json()
    listed = pair["candidates"][0]["memories"][42]
    assert set(listed) == {"memory_id", "timeline", "content_summary"}
    assert listed["memory_id"] == memories[42].memory_id


def queries_of(client, assignment) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        body = page_of(client, assignment)
    for query in captured.captured_queries:
        assert '"content_full"' not in query["sql"], query["sql"]
    return len(captured.captured_queries), len(body)


def test_the_page_costs_the_same_queries_with_5_and_with_120_memories(client):
    who, few = assigned(5, "CHAR_92")
    _, many = assigned(120, "CHAR_93", who)
    annotator = who["annotators"][0]
    client.force_login(annotator)
    small_queries, small_size = queries_of(client, few[annotator.pk])
    large_queries, large_size = queries_of(client, many[annotator.pk])
    assert small_queries == large_queries
    # 345 more summary lines, not 345 more texts (each ~1.5 KB of memory text).
    assert large_size - small_size < 345 * 1500


def test_only_the_assigned_annotator_reads_a_memory_its_candidates_cite(client):
    who, by_annotator = assigned(3, "CHAR_94")
    first, second = (by_annotator[a.pk] for a in who["annotators"][:2])
    cited = first.pair.character.memories.get(sequence=1)
    uncited = MemoryFactory(character=first.pair.character, sequence=9)
    other_character = MemoryFactory(character=unused_character(), sequence=1)
    left_out = audit_leaving_out_a_copy(first.pair.character, original=cited)
    for candidate in Candidate.objects.filter(pk__in=first.pair.candidates.all()):
        candidate.activated_memory_ids = [*candidate.activated_memory_ids, left_out.memory_id]
        candidate.save()

    client.force_login(first.annotator)
    assert client.get(memory_url(first, cited)).status_code == 200
    # Another annotator's assignment of the same pair, by its id: not found.
    assert client.get(memory_url(second, cited)).status_code == 404
    for memory in (uncited, other_character, left_out):
        assert client.get(memory_url(first, memory)).status_code == 404, memory.memory_id
    client.force_login(second.annotator)
    assert client.get(memory_url(second, cited)).status_code == 200
    client.force_login(who["admin"])
    assert client.get(memory_url(first, cited)).status_code == 403
    client.logout()
    assert client.get(memory_url(first, cited)).status_code == 302  # to the login page


def test_the_memory_fragment_names_no_family_or_model(client):
    who, by_annotator = assigned(3, "CHAR_95")
    mine = by_annotator[who["annotators"][0].pk]
    client.force_login(mine.annotator)
    for memory in mine.pair.character.memories.all():
        fragment = client.get(memory_url(mine, memory)).content.decode()
        assert not FAMILY_WORD.search(fragment), fragment
        assert not any(name in fragment for name in MODEL_NAMES.values())
        assert not re.search(r"candidate|run|pair", fragment, re.I), fragment
