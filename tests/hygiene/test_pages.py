"""The pages: role-gated, the reviewers' list shows no model family, paged at a
constant number of queries, and a decision made in the page is recorded."""

import pytest
from django.test import Client
from django.urls import reverse

from audit.hygiene.models import HygieneDecision, HygieneFlag
from audit.hygiene.rules import Rule
from core.roles import Role

from .conftest import EMAIL, screen_now

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("role", "flags", "screens"),
    [
        (Role.MEMORY_REVIEWER, 200, 403),
        (Role.ADMIN, 200, 200),
        (Role.PRIMARY_ANNOTATOR, 403, 403),
        (Role.ARBITRATOR, 403, 403),
        (Role.BASELINE_PARTICIPANT, 403, 403),
    ],
)
def test_pages_are_role_gated(corpus, admin_user, person, role, flags, screens):
    run = screen_now(admin_user)
    flag = HygieneFlag.objects.filter(run=run).first()
    client = client_for(person(role))
    assert client.get(reverse("audit:hygiene-flags")).status_code == flags
    assert client.get(reverse("audit:hygiene-flag", args=[flag.pk])).status_code == flags
    assert client.get(reverse("audit:hygiene-runs")).status_code == screens
    assert client.get(reverse("audit:hygiene-run", args=[run.pk])).status_code == screens
    decide = client.post(
        reverse("audit:hygiene-flag-decide", args=[flag.pk]), {"decision": "confirm"}
    )
    assert decide.status_code == (302 if role == Role.MEMORY_REVIEWER else 403)
    assert Client().get(reverse("audit:hygiene-flags")).status_code == 302  # to the login


def test_the_reviewers_pages_show_the_span_and_no_model_family(corpus, admin_user, reviewer):
    reference = corpus["reference"]
    reference.final_decision = "I ask Ottoline to water them with me."  # a name to flag
    reference.save()
    run = screen_now(admin_user)
    flag = HygieneFlag.objects.get(run=run, reference=reference)
    client = client_for(reviewer)
    listed = client.get(reverse("audit:hygiene-flags") + "?status=all").content.decode()
    detail = client.get(reverse("audit:hygiene-flag", args=[flag.pk])).content.decode()
    assert EMAIL in listed and "Ottoline" in listed
    assert "Ottoline" in detail and "reference response" in detail
    for body in (listed, detail):
        for family in ("gemini", "claude", "gpt"):
            assert family not in body.lower(), family


def test_the_flag_list_is_paged_at_a_constant_number_of_queries(
    corpus, admin_user, reviewer, django_assert_max_num_queries
):
    run = screen_now(admin_user)
    template = HygieneFlag.objects.filter(run=run).first()
    client = client_for(reviewer)

    def count_queries():
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("audit:hygiene-flags")).status_code == 200
        return len(captured)

    few = count_queries()
    for n in range(120):
        template.pk = None
        template.matched = f"Name{n}"
        template.save()
    with django_assert_max_num_queries(few):
        response = client.get(reverse("audit:hygiene-flags"))
    assert response.content.decode().count('data-testid="hygiene-flag-row"') == 50


def test_a_decision_in_the_page_is_recorded(corpus, admin_user, reviewer):
    run = screen_now(admin_user)
    flag = HygieneFlag.objects.get(run=run, rule=Rule.PHONE)
    client = client_for(reviewer)
    url = reverse("audit:hygiene-flag-decide", args=[flag.pk])
    refused = client.post(url, {"decision": "dismiss"})
    assert refused.status_code == 200
    assert "Say why the flagged text is fine" in refused.content.decode()
    done = client.post(
        reverse("audit:hygiene-flag-decide", args=[flag.pk]),
        {"decision": "dismiss", "reason": "A made-up number from a film."},
    )
    assert done.status_code == 302
    decision = HygieneDecision.objects.get(flag=flag)
    assert (decision.decision, decision.reason) == ("dismiss", "A made-up number from a film.")
    flag.refresh_from_db()
    assert flag.status == HygieneFlag.Status.DISMISSED


def test_an_admin_starts_a_screen_from_the_page(corpus, admin_user):
    client = client_for(admin_user)
    response = client.post(reverse("audit:hygiene-runs"), {"note": "before the release"})
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert "0 of 7 texts screened" in page.content.decode()
