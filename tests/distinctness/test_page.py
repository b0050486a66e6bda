"""The distinctness page (admins): every pair of the current profiles, closest first,
equal to scipy's distances, near-duplicates flagged, paged, in a fixed number of queries,
and linked from the pipeline page."""

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.roles import Role
from tests.factories import UserFactory

from .profiles import computed_table, profile, table4_profiles, table_rows
from .table4 import PLANTED, TABLE4, scipy_kendall_distance, scipy_l1

pytestmark = pytest.mark.django_db

URL = reverse("corpus:distinctness")


def all_rows(client, **query) -> list[dict]:
    rows, page = [], 1
    while True:
        body = client.get(URL, {**query, "page": page}).content.decode()
        rows += table_rows(body)
        if "Next</a>" not in body:
            return rows
        page += 1


def test_the_table_on_the_eleven_table4_characters_equals_scipy(admin_client):
    table4_profiles()
    computed_table()
    body = admin_client.get(URL).content.decode()
    assert 'data-testid="pairs-compared">55<' in body
    assert 'data-testid="near-duplicate-count">none<' in body
    rows = all_rows(admin_client)
    assert len(rows) == 55  # 50 on the first page, 5 on the second
    assert {r["pair"] for r in rows} == set(itertools.combinations(sorted(TABLE4), 2))
    for row in rows:
        x, y = (TABLE4[k] for k in row["pair"])
        assert row["l1"] == pytest.approx(scipy_l1(x, y), abs=0.005), row["pair"]
        assert row["kendall"] == pytest.approx(scipy_kendall_distance(x, y), abs=0.005)
        assert not row["flagged"]
    assert [(r["l1"], r["kendall"]) for r in rows] == sorted((r["l1"], r["kendall"]) for r in rows)


def test_a_planted_near_duplicate_is_flagged_first_and_alone(admin_client):
    table4_profiles()
    profile("CHAR_12", PLANTED)
    computed_table()
    body = admin_client.get(URL).content.decode()
    assert 'data-testid="near-duplicate-count"><span class="badge text-bg-danger">1<' in body
    rows = table_rows(body)
    assert rows[0]["pair"] == ("CHAR_05", "CHAR_12") and rows[0]["flagged"]
    assert rows[0]["l1"] == pytest.approx(scipy_l1(TABLE4["CHAR_05"], PLANTED))
    assert "Character 5" in body and "Character 12" in body
    assert [r["flagged"] for r in all_rows(admin_client)].count(True) == 1
    only = table_rows(admin_client.get(URL, {"flagged": "1"}).content.decode())
    assert [r["pair"] for r in only] == [("CHAR_05", "CHAR_12")]


def test_the_current_profile_is_the_latest_frozen_one_or_else_the_latest_draft(admin_client):
    profile("CHAR_01", TABLE4["CHAR_01"])
    # A later draft of Character 1 that would duplicate Character 5: not yet in force.
    profile("CHAR_01", PLANTED, number=2, frozen=False)
    profile("CHAR_05", TABLE4["CHAR_05"])
    # Character 12 has drafts only: its latest draft is compared, and named as a draft.
    profile("CHAR_12", TABLE4["CHAR_09"], frozen=False)
    profile("CHAR_12", PLANTED, number=2, frozen=False)
    computed_table()
    body = admin_client.get(URL).content.decode()
    rows = {r["pair"]: r for r in table_rows(body)}
    assert set(rows) == {("CHAR_01", "CHAR_05"), ("CHAR_01", "CHAR_12"), ("CHAR_05", "CHAR_12")}
    assert rows[("CHAR_01", "CHAR_05")]["l1"] == pytest.approx(
        scipy_l1(TABLE4["CHAR_01"], TABLE4["CHAR_05"])
    )
    assert rows[("CHAR_05", "CHAR_12")]["flagged"]
    assert not rows[("CHAR_01", "CHAR_05")]["flagged"]
    assert 'data-testid="draft-profiles"' in body and "Character 12 (version 2)" in body


def test_the_page_reads_in_a_fixed_number_of_queries(admin_client):
    table4_profiles()
    computed_table()
    admin_client.get(URL)  # the session and the user, loaded once
    with CaptureQueriesContext(connection) as eleven:
        assert admin_client.get(URL).status_code == 200
    for n in range(12, 40):
        profile(f"CHAR_{n:02d}", (0.3 + n / 100, 0.5, 0.5, 0.5, 0.2))
    computed_table()
    with CaptureQueriesContext(connection) as thirty_nine:
        assert admin_client.get(URL).status_code == 200
    assert len(thirty_nine) == len(eleven)


def test_fewer_than_two_characters_say_there_is_nothing_to_compare(admin_client):
    profile("CHAR_01", TABLE4["CHAR_01"])
    computed_table()
    body = admin_client.get(URL).content.decode()
    assert 'data-testid="no-pairs"' in body and 'data-testid="pairs-compared">0<' in body


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN])
def test_only_admins_open_the_page(client, role):
    table4_profiles()
    client.force_login(UserFactory(roles=[role]))
    assert client.get(URL).status_code == 403


def test_the_pipeline_page_links_to_it(admin_client):
    table4_profiles()
    body = admin_client.get(reverse("pipeline")).content.decode()
    assert f'href="{URL}"' in body
