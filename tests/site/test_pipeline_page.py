"""The admins' pipeline page: every stage of Figure 2 with its counts, what blocks it and
whom it waits for, a link to its queue, in a fixed number of queries."""

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from annotation.comparison.models import ComparisonPair
from annotation.corpus.models import Character, Memory
from annotation.profile_review.models import ProfileReviewCase
from core.roles import Role
from tests.comparison.helpers import judge
from tests.factories import UserFactory

from .pipeline_data import build_benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def admin_client(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def stage_html(body: str, key: str) -> str:
    start = body.index(f'data-stage="{key}"')
    end = body.find("data-stage=", start + 1)
    return body[start : end if end > 0 else len(body)]


def tally(section: str, label: str) -> int:
    found = re.search(rf'data-tally="{re.escape(label)}">([\d,]+)<', section)
    assert found, f"no tally {label!r}"
    return int(found.group(1).replace(",", ""))


def test_each_stage_shows_its_counts_and_whom_it_waits_for():
    built = build_benchmark()
    body = admin_client(built["admin"]).get(reverse("pipeline")).content.decode()
    order = [
        "characters",
        "profiles",
        "memory_generation",
        "memories",
        "scenarios",
        "generation",
        "judging",
        "adjudication",
        "references",
        "items",
        "label_audit",
        "baseline",
        "evaluation",
        "export",
    ]
    positions = [body.index(f'data-stage="{key}"') for key in order]
    assert positions == sorted(positions), "stages out of Figure 2's order"

    characters = Character.objects.count()
    assert tally(stage_html(body, "characters"), "characters") == characters
    profiles = stage_html(body, "profiles")
    frozen_count = Character.objects.filter(versions__frozen_at__isnull=False).distinct().count()
    assert tally(profiles, "profiles frozen") == frozen_count
    adjudicating = ProfileReviewCase.objects.get(status="adjudicating").character.key
    assert f"{adjudicating} waits for the senior&#x27;s freeze" in profiles

    memories = stage_html(body, "memories")
    assert tally(memories, "memories accepted after a finalized audit") == 2
    assert tally(memories, "memories stored") == Memory.objects.count()
    run = built["open_run"].pk
    assert f"Memory audit run #{run} not finalized" in memories
    assert f"1 flagged memory of run #{run} waits for a memory reviewer" in memories
    assert f"1 confirmed defect of run #{run} waits for the senior" in memories

    scenarios = stage_html(body, "scenarios")
    assert "screened so far: 1 by pl-scenario-1" in scenarios

    judging = stage_html(body, "judging")
    assert "1 pair waits for cmp-annotator-3&#x27;s judgments" in judging
    assert "1 pair has fewer than 3 annotators assigned" in judging
    adjudication = stage_html(body, "adjudication")
    assert tally(adjudication, "adopted unanimously") == 1
    assert "1 escalated pair waits for the arbitrator" in adjudication
    assert "1 reference waits for MCQ assembly" in stage_html(body, "references")

    items = stage_html(body, "items")
    assert tally(items, "final") == 2
    assert tally(items, "screened by the LLM judge") == 2
    assert "1 flagged item waits for item review" in items

    audit = built["audit"].pk
    label = stage_html(body, "label_audit")
    assert f"1 item of label audit #{audit} waits for pl-expert-3&#x27;s selection" in label
    assert "pl-expert-1&#x27;s selection" not in label
    assert "waits for the adjudicator pl-adjudicator" in label

    assert "waits for 1 participant to finish" in stage_html(body, "baseline")
    assert "1 call of evaluation run" in stage_html(body, "evaluation")
    export = stage_html(body, "export")
    assert tally(export, "protocol deviations in the manifest") == 1
    assert "1 protocol deviation recorded" in body


def test_a_stage_clears_when_its_blocker_is_resolved():
    built = build_benchmark()
    client = admin_client(built["admin"])
    before = stage_html(client.get(reverse("pipeline")).content.decode(), "judging")
    assert 'data-state="waiting"' in before
    assignment = built["waiting"].assignments.get(annotator=built["annotators"][2])
    judge(assignment, family="claude")
    ComparisonPair.objects.filter(assignments__isnull=True).delete()
    after = stage_html(client.get(reverse("pipeline")).content.decode(), "judging")
    assert "cmp-annotator-3" not in after
    assert 'data-state="clear"' in after


def test_an_empty_database_points_to_the_import():
    admin = UserFactory(username="pl-lone-admin", roles=[Role.ADMIN])
    body = admin_client(admin).get(reverse("pipeline")).content.decode()
    characters = stage_html(body, "characters")
    assert "No character yet: draft the characters, or import a characters file." in characters
    assert f'href="{reverse("drafting:job-new")}"' in characters
    assert f'href="{reverse("corpus:import")}"' in characters
    assert 'data-state="empty"' in stage_html(body, "evaluation")


def test_the_page_issues_the_same_number_of_queries_on_a_larger_benchmark(
    django_assert_num_queries,
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    built = build_benchmark()
    client = admin_client(built["admin"])
    client.get(reverse("pipeline"))  # session and role caches warm
    with CaptureQueriesContext(connection) as small:
        client.get(reverse("pipeline"))
    # Counted now: the connection's query log is bounded and building rotates it.
    expected = len(small)
    for _ in range(3):
        build_benchmark()
    built["admin"].refresh_from_db()  # the factories reset the password: log in again
    client = admin_client(built["admin"])
    client.get(reverse("pipeline"))
    with django_assert_num_queries(expected):
        response = client.get(reverse("pipeline"))
    assert response.status_code == 200
    assert tally(stage_html(response.content.decode(), "characters"), "characters") == (
        Character.objects.count()
    )
    assert Character.objects.count() >= 4 * 7


def test_every_stage_links_to_a_page_the_admin_can_open():
    built = build_benchmark()
    client = admin_client(built["admin"])
    body = client.get(reverse("pipeline")).content.decode()
    for key in re.findall(r'data-stage="([a-z_]+)"', body):
        links = re.findall(
            r'class="btn btn-sm btn-outline-primary" href="([^"]+)"', stage_html(body, key)
        )
        assert links, f"stage {key} has no link"
        for href in links:
            assert client.get(href).status_code == 200, f"{key}: {href}"


@pytest.mark.parametrize("role", [r for r in Role if r != Role.ADMIN], ids=str)
def test_only_admins_open_the_page(role):
    client = Client()
    client.force_login(UserFactory(roles=[role]))
    assert client.get(reverse("pipeline")).status_code == 403
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("pipeline")}"' not in home


def test_anonymous_visitors_are_sent_to_log_in():
    response = Client().get(reverse("pipeline"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_admins_reach_the_page_from_the_home_and_the_navbar():
    admin = UserFactory(username="pl-nav-admin", roles=[Role.ADMIN])
    home = admin_client(admin).get(reverse("home")).content.decode()
    assert 'data-testid="pipeline-link"' in home
    assert 'data-testid="nav-pipeline"' in home
    assert home.count(f'href="{reverse("pipeline")}"') == 2
