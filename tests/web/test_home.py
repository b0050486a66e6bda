"""The home shows each person the queues of their roles and nothing of the others."""

import pytest
from django.urls import reverse

from core.roles import Role
from heartbench_site.views import ROLE_QUEUES
from tests.factories import MemoryFactory, ProfileVersionFactory, ScenarioFactory

from .conftest import fresh_character

QUEUE_TITLES = {role: [q.title for q in queues] for role, queues in ROLE_QUEUES.items()}
ADMIN_MARKERS = [
    "Import corpus files",
    "corpus overview",
    reverse("corpus:import"),
    reverse("corpus:generation-list"),
]


def cards(body: str) -> set[str]:
    return {role.value for role in Role if f'data-role="{role.value}"' in body}


@pytest.mark.parametrize("role", list(Role), ids=str)
def test_home_shows_only_the_cards_of_the_held_role(role, client_for):
    body = client_for(role).get(reverse("home")).content.decode()
    assert cards(body) == {role.value}
    for other, titles in QUEUE_TITLES.items():
        for title in titles:
            heading = f">{title}</h3>"
            assert (heading in body) == (other == role), f"{title!r} on the home of {role}"
    for marker in ADMIN_MARKERS:
        assert (marker in body) == (role == Role.ADMIN), f"{marker!r} on the home of {role}"


def test_a_person_with_two_roles_sees_both_cards_in_pipeline_order(client_for):
    body = client_for(Role.MEMORY_REVIEWER, Role.PRIMARY_ANNOTATOR).get(reverse("home"))
    body = body.content.decode()
    assert cards(body) == {"primary_annotator", "memory_reviewer"}
    assert body.index('data-role="primary_annotator"') < body.index('data-role="memory_reviewer"')


def test_primary_annotator_sees_the_comparison_queue_state(client_for):
    body = client_for(Role.PRIMARY_ANNOTATOR).get(reverse("home")).content.decode()
    assert "Blinded three-candidate comparison" in body
    assert "No items assigned yet" in body


def test_baseline_participant_sees_their_study_and_no_corpus(client_for, secret_corpus):
    body = client_for(Role.BASELINE_PARTICIPANT).get(reverse("home")).content.decode()
    assert "Human baseline — your 150 items" in body
    for hidden in ("/corpus/", "Characters", "Scenarios", "Memories", "Profile", "/api/docs/"):
        assert hidden not in body, hidden


def test_admin_sees_corpus_counts_and_links(client_for, secret_corpus):
    body = client_for(Role.ADMIN, is_staff=True).get(reverse("home")).content.decode()
    overview = body[body.index('data-testid="corpus-overview"') :]
    assert 'Characters</th><td class="text-end">1<' in overview
    assert 'Memories</th><td class="text-end">2<' in overview
    assert "(1 frozen)" in overview
    assert 'Scenarios</th><td class="text-end">2<' in overview
    for link in (reverse("corpus:import"), reverse("admin:index"), reverse("api-docs")):
        assert f'href="{link}"' in body
    assert f'href="{reverse("corpus:import-job", args=[secret_corpus["job"].pk])}"' in body


def test_the_django_admin_link_needs_a_staff_account(client_for):
    body = client_for(Role.ADMIN, is_staff=False).get(reverse("home")).content.decode()
    assert f'href="{reverse("admin:index")}"' not in body


def test_navigation_lists_only_the_roles_links(client_for):
    annotator = client_for(Role.PRIMARY_ANNOTATOR).get(reverse("home")).content.decode()
    assert f'href="{reverse("corpus:character-list")}"' in annotator
    assert f'href="{reverse("corpus:import")}"' not in annotator
    baseline = client_for(Role.BASELINE_PARTICIPANT).get(reverse("home")).content.decode()
    assert f'href="{reverse("corpus:character-list")}"' not in baseline
    assert "Baseline participant" in baseline  # the role badge
    assert f'action="{reverse("logout")}"' in baseline and 'method="post"' in baseline


def test_logout_is_a_post_and_signs_out(client_for):
    client = client_for(Role.ARBITRATOR)
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 302


def grow_corpus(n):
    for _ in range(n):
        character = fresh_character()
        ProfileVersionFactory(character=character, number=1)
        MemoryFactory(character=character, sequence=1)
        ScenarioFactory()


# session, user, the user's groups; the admin's five aggregates, recent jobs and the
# count of generation runs still running.
# Roles with a live review queue count it in one query each (review_home_queues).
HOME_QUERIES = {
    # ...and one each for item review, label audits, baseline studies, evaluation runs,
    # the export.
    Role.ADMIN: 3 + 5 + 1 + 1 + 5,
    # ...and the comparison queues (comparison_home_queues) one more each.
    Role.PRIMARY_ANNOTATOR: 3 + 1 + 1,
    # ...and the memory audit's queues (audit_home_queues) and MCQ item review one more each.
    Role.ARBITRATOR: 3 + 1 + 1 + 1 + 1,
    Role.SCENARIO_REVIEWER: 3 + 1,
    Role.MEMORY_REVIEWER: 3 + 1,
    # The reference-label audit and the baseline count their queue in one query each.
    Role.AUDIT_EXPERT: 3 + 1,
    Role.AUDIT_ADJUDICATOR: 3 + 1,
    Role.BASELINE_PARTICIPANT: 3 + 1,
    # An observer's own open tasks, one count (issue 37).
    Role.OBSERVER: 3 + 1,
}


@pytest.mark.parametrize("role", list(Role), ids=str)
def test_home_issues_a_fixed_number_of_queries(role, client_for, django_assert_num_queries):
    client = client_for(role)
    expected = HOME_QUERIES.get(role, 3)
    grow_corpus(2)
    with django_assert_num_queries(expected):
        client.get(reverse("home"))
    grow_corpus(18)
    with django_assert_num_queries(expected):
        client.get(reverse("home"))


def test_review_queues_link_to_their_workflow_with_a_live_count(client_for):
    ProfileVersionFactory()
    ProfileVersionFactory()
    ScenarioFactory()
    annotator = client_for(Role.PRIMARY_ANNOTATOR).get(reverse("home")).content.decode()
    assert "2 profiles awaiting your review" in annotator
    assert f'href="{reverse("review:profile-list")}"' in annotator
    reviewer = client_for(Role.SCENARIO_REVIEWER).get(reverse("home")).content.decode()
    assert f'href="{reverse("review:scenario-list")}"' in reviewer
    assert "1 scenario needs your review" in reviewer
    senior = client_for(Role.ARBITRATOR).get(reverse("home")).content.decode()
    assert "No profiles awaiting adjudication" in senior
