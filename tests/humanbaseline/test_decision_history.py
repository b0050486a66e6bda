"""The append-only decision history (issue #12): who, when, before/after, for admins."""

import pytest
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.roles import Role
from humanbaseline.models import ItemResponse
from tests.factories import UserFactory

from .conftest import enrol

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_for(role_groups):
    def make(role):
        client = Client()
        client.force_login(UserFactory(roles=[role]))
        return client

    return make


def answer(client, study, position, choice):
    return client.post(
        reverse("baseline:item", args=[study.pk, position]), {"choice": choice, "seconds": "5"}
    )


def test_a_revised_answer_shows_who_changed_what_and_from_what(small_study, client, client_for):
    study, _, _ = small_study
    participation = enrol(study, "reviser-7")
    client.force_login(participation.user)
    answer(client, study, 1, "A")
    answer(client, study, 1, "C")
    response = ItemResponse.objects.get(participation=participation, position=1)
    assert response.choice == "C"
    rows = list(response.history.order_by("history_date", "history_id"))
    assert [r.choice for r in rows][-2:] == ["A", "C"]
    assert {r.history_user.username for r in rows if r.history_user} == {"reviser-7"}

    admin = client_for(Role.ADMIN)
    page = admin.get(reverse("decision-history"), {"model": "humanbaseline.ItemResponse"})
    body = page.content.decode()
    assert page.status_code == 200
    assert "reviser-7" in body
    assert "<code>choice</code>" in body
    assert '<span class="text-danger">A</span> → <span class="text-success">C</span>' in body
    by_person = admin.get(reverse("decision-history"), {"user": "nobody-else"}).content.decode()
    assert "reviser-7" not in by_person.split('data-testid="history-table"')[1]


def test_the_history_refuses_updates_and_deletes(small_study):
    study, _, _ = small_study
    participation = enrol(study, "reviser-8")
    row = participation.history.first()
    assert row is not None
    for attempt in (
        lambda: type(row).objects.filter(pk=row.pk).update(history_change_reason="rewritten"),
        lambda: type(row).objects.filter(pk=row.pk).delete(),
    ):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            attempt()
    assert type(row).objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize("role", [r for r in Role if r is not Role.ADMIN], ids=str)
def test_only_admins_browse_the_history(role, client_for):
    assert client_for(role).get(reverse("decision-history")).status_code == 403


def test_the_history_page_costs_the_same_queries_however_long_the_history(
    small_study, client_for, django_assert_num_queries
):
    study, _, _ = small_study
    admin = client_for(Role.ADMIN)
    admin.get(reverse("decision-history"))  # warm the session and content types
    p = enrol(study, "reviser-9")
    with CaptureQueriesContext(connection) as first:
        admin.get(reverse("decision-history"))
    for n in range(3):
        enrol(study, f"reviser-1{n}")
    with django_assert_num_queries(len(first.captured_queries)):
        admin.get(reverse("decision-history"))
    assert p.history.exists()
