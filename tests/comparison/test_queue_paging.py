"""The annotator's comparison queue at a size where building every row would show
(issue #34): the page and its API show one page of assignments with a working next
link, the counts above the page still cover the whole queue, and the number of queries
does not grow with the queue."""

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.comparison.models import ComparisonDraft, ComparisonPair, PairAssignment
from annotation.comparison.views import QUEUE_ROWS_PER_PAGE
from core.roles import Role
from tests.comparison.helpers import ensure_groups
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory

pytestmark = pytest.mark.django_db


def queue_of(size: int, *, key="CHAR_31"):
    """An annotator with ``size`` assignments of one character, each on its own scenario:
    the first three drafted, the last two routed (closed)."""
    ensure_groups()
    annotator = UserFactory(username=f"pager-{key}", roles=[Role.PRIMARY_ANNOTATOR])
    character = CharacterFactory(key=key)
    version = ProfileVersionFactory(
        character=character, number=1, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
    )
    assignments = []
    for i in range(size):
        status = ComparisonPair.Status.ADOPTED if i >= size - 2 else None
        pair = ComparisonPair.objects.create(
            character=character,
            scenario=ScenarioFactory(scenario_id=f"SCN_PAGER_{key}_{i:04d}", name=f"Trial {i}"),
            profile_version=version,
            **({"status": status} if status else {}),
        )
        assignments.append(
            PairAssignment.objects.create(pair=pair, annotator=annotator, permutation=[])
        )
    for a in assignments[:3]:
        ComparisonDraft.objects.create(assignment=a, data={"selected_letter": "A"})
    return annotator, assignments


def titles(body: str) -> list[str]:
    return re.findall(r'<span class="visually-hidden"> ([^<]*)</span>', body)


def test_the_queue_page_shows_one_page_and_the_next_link_walks_the_whole_queue(client):
    annotator, _ = queue_of(120)
    client.force_login(annotator)
    body = client.get(reverse("comparison:queue")).content.decode()
    assert body.count('data-testid="queue-row"') == QUEUE_ROWS_PER_PAGE
    # The counts cover the whole queue, not the page.
    assert "3 with a draft" in body and "117 not started" in body and "0 submitted" in body
    assert 'data-testid="resume"' in body and "Trial 0" in body
    seen = titles(body)
    page = 1
    while 'href="?page=' in body and "Next</a>" in body:
        page += 1
        assert f'href="?page={page}">Next</a>' in body
        body = client.get(reverse("comparison:queue"), {"page": page}).content.decode()
        assert f"Page {page} of 3" in body
        seen += titles(body)
    assert page == 3
    # Every assignment once, in queue order (scenario ids sort as the loop made them).
    assert seen == [f"Character 31 × Trial {i}" for i in range(120)]


def queries_of(client, url, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(url, params)
    assert answer.status_code == 200
    # No query reads every assignment: each one that reads the queue takes a page
    # (LIMIT) or counts in the database.
    table = PairAssignment._meta.db_table
    for query in captured.captured_queries:
        sql = query["sql"]
        if f'FROM "{table}"' in sql:
            paged = re.search(r"LIMIT \d+( OFFSET \d+)?\s*$", sql)
            assert paged or sql.startswith("SELECT COUNT("), sql
    return len(captured.captured_queries)


def test_the_queue_page_and_api_cost_the_same_queries_at_ten_and_at_120_pairs(client):
    small, _ = queue_of(10, key="CHAR_32")
    large, _ = queue_of(120, key="CHAR_33")
    counts = {}
    for who in (small, large):
        client.force_login(who)
        token, _ = Token.objects.get_or_create(user=who)
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        counts[who.pk] = (
            queries_of(client, reverse("comparison:queue")),
            queries_of(api, reverse("comparison-api:queue")),
            queries_of(
                api, reverse("comparison-api:queue"), state="remaining", page_size=5, page=2
            ),
        )
    assert counts[small.pk] == counts[large.pk]


def test_the_api_filters_and_pages_in_the_database(client):
    annotator, assignments = queue_of(120, key="CHAR_34")
    token, _ = Token.objects.get_or_create(user=annotator)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    first = api.get(reverse("comparison-api:queue")).json()
    assert first["count"] == 120 and len(first["results"]) == 50 and first["next"]
    second = api.get(first["next"]).json()
    assert [r["scenario"] for r in second["results"]] == [
        f"SCN_PAGER_CHAR_34_{i:04d}" for i in range(50, 100)
    ]
    drafted = api.get(reverse("comparison-api:queue"), {"state": "in progress"}).json()
    assert drafted["count"] == 3
    assert [r["assignment"] for r in drafted["results"]] == [
        str(a.public_id) for a in assignments[:3]
    ]
    routed = api.get(reverse("comparison-api:queue"), {"routed": "true"}).json()
    assert routed["count"] == 2 and all(r["routed"] for r in routed["results"])
    newest = api.get(reverse("comparison-api:queue"), {"ordering": "-scenario", "page_size": 1})
    assert newest.json()["results"][0]["scenario"] == "SCN_PAGER_CHAR_34_0119"


def test_the_pair_after_one_skips_routed_and_wraps_to_the_start():
    from annotation.comparison.selectors import comparison_queue

    annotator, assignments = queue_of(120, key="CHAR_35")
    queue = comparison_queue(user=annotator)
    assert queue.after(assignments[0].public_id).public_id == str(assignments[1].public_id)
    # The last open one is followed, past the two routed at the end, by the first.
    assert queue.after(assignments[117].public_id).public_id == str(assignments[0].public_id)
