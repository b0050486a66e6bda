"""On the demo (every workflow with records), the team page's counts of each person equal
counts made here from the records, and the construction involvement is the conflict
rule's own count. A module of its own: the demo is built once for it and stays until its
end."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from core.conflicts import construction_involvement

from .test_team_page import expected_work, shown_rows

pytestmark = pytest.mark.django_db


def test_each_persons_counts_on_the_demo_equal_a_count_from_the_records(demo_built):
    admin = get_user_model().objects.get(username="admin")
    client = Client()
    client.force_login(admin)
    rows = shown_rows(client, participants="1")
    people = get_user_model().objects.filter(username__in=rows)
    involvement = construction_involvement([p.pk for p in people])
    busy = 0
    for person in people:
        work, involved = rows[person.username]
        assert work == expected_work(person), person.username
        assert involved == sum(i.count for i in involvement.get(person.pk, []))
        busy += bool(work)
    # The demo gives most queues work: the comparison is not vacuous.
    assert busy >= 6
    shown = {q for work, _ in rows.values() for q in work}
    assert {"Comparison judgments", "Profile reviews", "Label audit selections"} <= shown
    assert any(n for _, n in rows.values())


def test_the_demo_admin_sees_every_demo_account_and_a_pending_invitation(demo_built):
    from core.team.demo import DEMO_INVITATION_EMAIL
    from heartbench_site.management.commands.demo_setup import DEMO_ACCOUNTS

    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    rows = shown_rows(client, participants="1")
    assert {name for name, _, _ in DEMO_ACCOUNTS} <= set(rows)
    page = client.get("/team/").content.decode()
    assert DEMO_INVITATION_EMAIL in page and 'data-testid="invitation-row"' in page


def test_each_persons_page_lists_their_open_work_to_hand_on(demo_built):
    """The open work a deactivation leaves behind: as many records as the open counts,
    with a link to where that work is assigned."""
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    rows = shown_rows(client, participants="1")
    with_open = 0
    for person in get_user_model().objects.filter(username__in=rows):
        response = client.get(f"/team/people/{person.pk}/")
        assert response.status_code == 200, person.username
        body = response.content.decode()
        open_total = sum(o or 0 for o, _ in expected_work(person).values())
        if open_total:
            with_open += 1
            listed = sum(int(n) for n in re.findall(r'<h3 class="h6">[^<]+ \((\d+)\)</h3>', body))
            assert listed == open_total, person.username
        else:
            assert "Nothing is waiting for" in body
    assert with_open >= 2
