"""The arbitration queue and the decided list take their page in the database (issue
#34): at 120 pairs a page shows 50 rows with a next link that reaches the rest, and the
number of queries does not grow with the pairs; every query that lists pairs is a count
or carries a LIMIT."""

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.comparison.models import ComparisonPair
from tests.comparison.helpers import people
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory

pytestmark = pytest.mark.django_db

DECIDED = (
    ComparisonPair.Status.ADOPTED,
    ComparisonPair.Status.RESOLVED,
    ComparisonPair.Status.DISCARDED,
)


def add_pairs(n, statuses, key):
    """``n`` pairs of one character, one scenario each, cycling through ``statuses``."""
    character = CharacterFactory(key=key)
    version = ProfileVersionFactory(
        character=character, number=1, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
    )
    return ComparisonPair.objects.bulk_create(
        ComparisonPair(
            character=character,
            scenario=ScenarioFactory(),
            profile_version=version,
            status=statuses[i % len(statuses)],
            escalation_reasons=["the annotators disagreed"],
        )
        for i in range(n)
    )


def pair_ids(body):
    return [int(i) for i in re.findall(r'href="/arbitration/pairs/(\d+)/"', body)]


def next_link(body):
    found = re.search(r'<a class="page-link" href="(\?page=\d+)">Next</a>', body)
    return found.group(1) if found else None


def test_the_decided_list_at_120_pairs_shows_a_page_and_a_next_link_to_the_rest(client):
    who = people()
    made = add_pairs(120, DECIDED, "CHAR_51")
    add_pairs(3, (ComparisonPair.Status.ESCALATED,), "CHAR_52")  # never on this list
    client.force_login(who["arbitrator"])
    url = reverse("adjudication:decided")
    seen, pages, href = [], [], ""
    while href is not None:
        body = client.get(url + href).content.decode()
        rows = pair_ids(body)
        assert body.count('data-testid="arbitration-row"') == len(rows)
        pages.append(len(rows))
        seen += rows
        href = next_link(body)
    # Three pages (50, 50, 20): every decided pair once, none awaiting arbitration.
    assert pages == [50, 50, 20]
    assert sorted(seen) == sorted(p.pk for p in made)
    # By status, then pair, across the pages as on one list.
    status_of = dict(ComparisonPair.objects.values_list("pk", "status"))
    statuses = [status_of[i] for i in seen]
    assert statuses == sorted(statuses)
    assert "Page 1 of 3" in client.get(url).content.decode()


def listing_queries(client, url):
    """(number of queries, the SQL of those reading the pair table first) for one GET."""
    table = ComparisonPair._meta.db_table
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    sqls = [q["sql"] for q in captured.captured_queries]
    return len(sqls), [s for s in sqls if f'FROM "{table}"' in s]


@pytest.mark.parametrize(
    ("route", "statuses"),
    [
        ("adjudication:decided", DECIDED),
        ("adjudication:queue", (ComparisonPair.Status.ESCALATED,)),
    ],
)
def test_the_lists_read_the_same_number_of_queries_at_10_and_120_pairs(client, route, statuses):
    who = people()
    # The arbitrator's queue also asks which pairs they judged (issue #24).
    client.force_login(who["arbitrator"])
    url = reverse(route)
    add_pairs(10, statuses, "CHAR_53")
    small, small_listing = listing_queries(client, url)
    add_pairs(110, statuses, "CHAR_54")
    large, large_listing = listing_queries(client, url)
    assert small == large
    assert len(large_listing) == len(small_listing) == 2
    for sql in large_listing:
        assert "COUNT(" in sql.upper() or re.search(r"\bLIMIT 50\b", sql), sql
    assert len(pair_ids(client.get(url).content.decode())) == 50
