"""`make demo`: the distinctness page works on the demo's characters (the eleven stand-ins,
the drafted ones still in review, the one generated on the platform), and its table
equals scipy's distances on the profiles the demo stored."""

import itertools

import pytest
from django.urls import reverse

from annotation.corpus.models import Character
from core.roles import Role
from tests.factories import UserFactory

from .profiles import table_rows
from .table4 import TABLE4, scipy_kendall_distance, scipy_l1

pytestmark = pytest.mark.django_db


def current_vectors() -> dict[str, tuple]:
    """Each demo character's latest frozen version, or its latest one: read here without
    the page's selector."""
    vectors = {}
    for character in Character.objects.prefetch_related("versions"):
        versions = sorted(character.versions.all(), key=lambda v: v.number, reverse=True)
        chosen = next((v for v in versions if v.is_frozen), versions[0] if versions else None)
        if chosen is not None:
            vectors[character.key] = tuple(chosen.big_five[t] for t in "OCEAN")
    return vectors


def test_the_page_shows_the_demo_s_characters(demo_built, client):
    vectors = current_vectors()
    assert {k: vectors[k] for k in TABLE4} == TABLE4  # the eleven stand-ins
    client.force_login(UserFactory(roles=[Role.ADMIN]))
    url = reverse("corpus:distinctness")
    response = client.get(url)
    assert response.status_code == 200
    pairs = len(vectors) * (len(vectors) - 1) // 2
    assert f'data-testid="pairs-compared">{pairs}<' in response.content.decode()
    rows, page = [], 1
    while True:
        body = client.get(url, {"page": page}).content.decode()
        rows += table_rows(body)
        if "Next</a>" not in body:
            break
        page += 1
    assert {r["pair"] for r in rows} == set(itertools.combinations(sorted(vectors), 2))
    for row in rows:
        x, y = (vectors[k] for k in row["pair"])
        assert row["l1"] == pytest.approx(scipy_l1(x, y), abs=0.005)
        assert row["kendall"] == pytest.approx(scipy_kendall_distance(x, y), abs=0.005)
        assert row["flagged"] == (row["l1"] < 0.35 and row["kendall"] <= 0.5)
    # No two of the eleven stand-ins are near-duplicates; the character the demo generates
    # memories for (Character 14, O high) is one of Character 9 (O high, 0.20 apart).
    flagged = {r["pair"] for r in rows if r["flagged"]}
    assert not [pair for pair in flagged if set(pair) <= set(TABLE4)]
    assert ("CHAR_09", "CHAR_14") in flagged
