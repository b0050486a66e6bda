"""The outcome table (like seed 000 Table 6) against hand-computed values."""

import csv
import io

import pytest
from django.urls import reverse

from annotation.profile_review.selectors import profile_outcome_table
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, UserFactory

from .conftest import login, request_change, submit


@pytest.fixture
def paper_fixture(annotators):
    """Eleven profiles reviewed as in App. B.3: eight accepted by all three, CHAR_03 and
    CHAR_07 with one local-revision request, CHAR_08 with two."""
    for n in range(1, 12):
        ProfileVersionFactory(character=CharacterFactory(key=f"CHAR_{n:02d}"), number=1)
    local = {"CHAR_03": 1, "CHAR_07": 1, "CHAR_08": 2}
    for n in range(1, 12):
        key = f"CHAR_{n:02d}"
        for i, reviewer in enumerate(annotators):
            if i < local.get(key, 0):
                request_change(key, reviewer)
                submit(key, reviewer, "local_revision")
            else:
                submit(key, reviewer)


def test_the_table_matches_the_hand_computed_counts(paper_fixture):
    table = profile_outcome_table()
    rows = {r.key: r for r in table.rows}
    assert table.total == 11
    # 8/11 = 72.7 %, 2/11 = 18.2 %, 1/11 = 9.1 %, 0/11 = 0 %.
    assert (rows["accepted"].count, rows["accepted"].percent) == (8, 72.7)
    assert (rows["local_1"].count, rows["local_1"].percent) == (2, 18.2)
    assert rows["local_1"].characters == ["CHAR_03", "CHAR_07"]
    assert (rows["local_2"].count, rows["local_2"].percent) == (1, 9.1)
    assert rows["local_2"].characters == ["CHAR_08"]
    assert (rows["flagged"].count, rows["flagged"].percent) == (0, 0.0)
    assert sum(r.count for r in table.rows) == 11


def test_incomplete_and_flagged_profiles_have_their_own_rows(annotators):
    for key in ("CHAR_01", "CHAR_02", "CHAR_03", "CHAR_04"):
        ProfileVersionFactory(character=CharacterFactory(key=key), number=1)
    submit("CHAR_01", annotators[0], "flag", explanation="Contradiction between fields.")
    submit("CHAR_01", annotators[1])
    submit("CHAR_01", annotators[2])
    submit("CHAR_02", annotators[0])
    rows = {r.key: r for r in profile_outcome_table().rows}
    assert rows["flagged"].characters == ["CHAR_01"] and rows["flagged"].percent == 25.0
    assert rows["in_progress"].characters == ["CHAR_02"]
    assert rows["not_started"].characters == ["CHAR_03", "CHAR_04"]
    assert rows["accepted"].count == 0


def test_the_page_and_the_csv_show_the_same_numbers(paper_fixture, senior):
    client = login(senior)
    page = client.get(reverse("review:profile-outcomes")).content.decode()
    assert 'data-outcome="accepted"' in page and "72.7" in page and "18.2" in page
    body = client.get(reverse("review:profile-outcomes-csv")).content.decode()
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["outcome", "profiles", "percent", "characters"]
    assert rows[1][:3] == ["Accepted as-is by all reviewers", "8", "72.7"]
    assert rows[2][1:] == ["2", "18.2", "CHAR_03 CHAR_07"]
    assert rows[-1][:2] == ["Total", "11"]
    api = client.get(reverse("review-api:profile-outcomes")).json()
    assert api["total"] == 11 and api["rows"][0]["percent"] == 72.7


def test_annotators_cannot_read_the_outcome_table(annotators, paper_fixture):
    # It aggregates the other annotators' recommendations.
    client = login(annotators[0])
    assert client.get(reverse("review:profile-outcomes")).status_code == 403
    assert client.get(reverse("review-api:profile-outcomes")).status_code == 403
    admin = login(UserFactory(username="adm", roles=[Role.ADMIN]))
    assert admin.get(reverse("review:profile-outcomes")).status_code == 200
