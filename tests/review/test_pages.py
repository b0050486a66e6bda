"""The review pages: who reaches what, constant query counts, htmx fragments that keep a
working form action, and bad input that leaves the database unchanged."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.corpus.models import ProfileVersion
from annotation.profile_review.models import ChangeRequest, ProfileReview
from annotation.profile_review.selectors import profile_home_queues
from annotation.profile_review.services import change_request_resolve
from annotation.scenario_review.selectors import scenario_home_queues
from annotation.scenario_review.services import scenario_reassess_propose
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory

from .conftest import approve, login, rate, request_change, submit


def review_home_queues(*, user):
    """Both reviews' home cards, merged as the home page merges its sources."""
    return profile_home_queues(user=user) | scenario_home_queues(user=user)


def queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx)


def grow_profiles(n, annotators, start=2, requests=1):
    for i in range(start, start + n):
        key = f"CHAR_{i:02d}"
        ProfileVersionFactory(character=CharacterFactory(key=key), number=1)
        for reviewer in annotators:
            for p in range(1, requests + 1):
                request_change(key, reviewer, field=f"core_pattern_{p}", passage=f"habit {p}")
            submit(key, reviewer, "local_revision")


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        (
            Role.PRIMARY_ANNOTATOR,
            {
                "profile-list": 200,
                "profile-review": 200,
                "adjudicate": 403,
                "outcomes": 403,
                "scenario-list": 403,
                "coverage": 403,
            },
        ),
        (
            Role.ARBITRATOR,
            {
                "profile-list": 200,
                "profile-review": 403,
                "adjudicate": 200,
                "outcomes": 200,
                "scenario-list": 403,
                "coverage": 403,
            },
        ),
        (
            Role.SCENARIO_REVIEWER,
            {
                "profile-list": 403,
                "profile-review": 403,
                "adjudicate": 403,
                "outcomes": 403,
                "scenario-list": 200,
                "coverage": 200,
            },
        ),
        (
            Role.ADMIN,
            {
                "profile-list": 200,
                "profile-review": 403,
                "adjudicate": 403,
                "outcomes": 200,
                "scenario-list": 200,
                "coverage": 200,
            },
        ),
        (
            Role.BASELINE_PARTICIPANT,
            {
                "profile-list": 403,
                "profile-review": 403,
                "adjudicate": 403,
                "outcomes": 403,
                "scenario-list": 403,
                "coverage": 403,
            },
        ),
        (
            Role.MEMORY_REVIEWER,
            {
                "profile-list": 403,
                "profile-review": 403,
                "adjudicate": 403,
                "outcomes": 403,
                "scenario-list": 403,
                "coverage": 403,
            },
        ),
    ],
    ids=str,
)
def test_each_role_reaches_exactly_its_review_pages(role, expected, draft, scenario):
    urls = {
        "profile-list": reverse("review:profile-list"),
        "profile-review": reverse("review:profile-review", args=["CHAR_01"]),
        "adjudicate": reverse("review:profile-adjudicate", args=["CHAR_01"]),
        "outcomes": reverse("review:profile-outcomes"),
        "scenario-list": reverse("review:scenario-list"),
        "coverage": reverse("review:scenario-coverage"),
    }
    client = login(UserFactory(username=f"u-{role}", roles=[role]))
    for name, url in urls.items():
        assert client.get(url).status_code == expected[name], (role, name)


def test_anonymous_visitors_are_sent_to_log_in(draft):
    from django.test import Client

    response = Client().get(reverse("review:profile-review", args=["CHAR_01"]))
    assert response.status_code == 302 and "/accounts/login/" in response.url
    assert Client().get(reverse("review-api:profile-list")).status_code == 403


def test_profile_pages_issue_a_constant_number_of_queries(draft, annotators, senior):
    grow_profiles(1, annotators)
    annotator, arbitrator = login(annotators[0]), login(senior)
    urls = [
        (annotator, reverse("review:profile-list")),
        (annotator, reverse("review:profile-review", args=["CHAR_02"])),
        (arbitrator, reverse("review:profile-list")),
        (arbitrator, reverse("review:profile-adjudicate", args=["CHAR_02"])),
        (arbitrator, reverse("review:profile-outcomes")),
        (annotator, reverse("review-api:profile-list")),
    ]
    before = [queries(c, u) for c, u in urls]
    grow_profiles(4, annotators, start=3, requests=3)  # more profiles, more requests each
    urls = [(c, u.replace("CHAR_02", "CHAR_06")) for c, u in urls]
    after = [queries(c, u) for c, u in urls]
    assert before == after


def test_scenario_pages_issue_a_constant_number_of_queries(scenario_reviewers):
    first, second = scenario_reviewers

    def grow(ids):
        for sid in ids:
            ScenarioFactory(scenario_id=sid)
            approve(sid, first)
            approve(sid, second)
            rate(sid, first)
            rate(sid, second, adversity=2)
            # A pending re-assessment proposal on each (adversity 6 vs 2).
            scenario_reassess_propose(scenario_id=sid, reviewer=second, agreed={"adversity": 4})

    grow(["SCN_SCHOOL_AGE_1"])
    client = login(first)
    urls = [
        reverse("review:scenario-list"),
        reverse("review:scenario-review", args=["SCN_SCHOOL_AGE_1"]),
        reverse("review:scenario-coverage"),
        reverse("review-api:scenario-list"),
        reverse("review-api:scenario-coverage"),
    ]
    before = [queries(client, u) for u in urls]
    grow([f"SCN_SCHOOL_AGE_{n}" for n in range(2, 7)])
    assert [queries(client, u) for u in urls] == before


def test_home_queues_count_what_each_role_has_to_do(
    draft, annotators, senior, scenario, scenario_reviewers
):
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_02"), number=1)
    assert review_home_queues(user=annotators[0])["profile_review"]["count"] == 2
    submit("CHAR_01", annotators[0])
    assert review_home_queues(user=annotators[0])["profile_review"]["count"] == 1
    submit("CHAR_01", annotators[1])
    submit("CHAR_01", annotators[2])
    cards = review_home_queues(user=senior)
    assert set(cards) == {"profile_adjudication"} and cards["profile_adjudication"]["count"] == 1
    assert review_home_queues(user=annotators[1])["profile_review"]["count"] == 1
    first, second = scenario_reviewers
    assert review_home_queues(user=first)["scenario_review"]["count"] == 1
    approve(scenario.scenario_id, first)
    assert review_home_queues(user=first)["scenario_review"]["count"] == 0
    assert review_home_queues(user=second)["scenario_review"]["count"] == 1
    everyone = UserFactory(username="all", roles=list(Role))
    with CaptureQueriesContext(connection) as ctx:
        review_home_queues(user=everyone)
    assert len(ctx) <= 5  # the roles query and one per card


def test_adding_a_change_request_by_htmx_returns_the_fragment(draft, annotators):
    client = login(annotators[0])
    url = reverse("review:change-request-add", args=["CHAR_01"])
    page = client.get(reverse("review:profile-review", args=["CHAR_01"])).content.decode()
    assert f'action="{url}"' in page and f'hx-post="{url}"' in page  # works without JS too
    data = {
        "field": "description",
        "passage": "reads every situation",
        "concern": "Too strong.",
        "suggested_correction": "Soften.",
    }
    fragment = client.post(url, data, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="change-requests"')
    assert "<html" not in fragment and "Too strong." in fragment
    plain = client.post(url, dict(data, concern="Second."))
    assert plain.status_code == 302
    assert ChangeRequest.objects.count() == 2


def test_bad_input_shows_a_clear_message_and_changes_nothing(draft, annotators, senior):
    client = login(annotators[0])
    url = reverse("review:change-request-add", args=["CHAR_01"])
    response = client.post(
        url,
        {
            "field": "description",
            "passage": "not in the text",
            "concern": "x",
            "suggested_correction": "y",
        },
    )
    assert response.status_code == 200
    assert "does not occur in Description" in response.content.decode()
    assert not ChangeRequest.objects.exists()
    response = client.post(
        reverse("review:profile-review", args=["CHAR_01"]),
        {"recommendation": "local_revision", "submit": "1"},
    )
    body = response.content.decode()
    assert "Judge every criterion" in body and "at least one change request" in body
    assert not ProfileReview.objects.filter(submitted_at__isnull=False).exists()
    # One change request (a profile all three accepted as-is takes no edit), rejected so
    # that the freeze below is refused for its missing confirmation alone.
    change = request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    for reviewer in annotators[1:]:
        submit("CHAR_01", reviewer)
    change_request_resolve(
        request_id=change.pk, arbitrator=senior, status="rejected", reason="Justified."
    )
    senior_client = login(senior)
    edit_url = reverse("review:profile-edit", args=["CHAR_01"])
    form = {
        "construction_label": draft.construction_label,
        "occupation": draft.occupation,
        "openness": "0.5",
        "conscientiousness": "0.6",
        "extraversion": "0.4",
        "agreeableness": "0.55",
        "neuroticism": "0.80",
        "description": "Softer prose.",
        "self_value_logic": draft.self_value_logic,
        **{f"core_pattern_{i}": p for i, p in enumerate(draft.core_patterns, start=1)},
    }
    response = senior_client.post(edit_url, form)
    assert "(Neuroticism (N) 0.95) would change to 0.80" in response.content.decode()
    assert ProfileVersion.objects.count() == 1
    response = senior_client.post(edit_url, dict(form, openness="1.7"))
    assert ProfileVersion.objects.count() == 1 and response.status_code == 200
    response = senior_client.post(reverse("review:profile-freeze", args=["CHAR_01"]), {})
    assert "Confirm the final suitability check" in response.content.decode()
    assert not ProfileVersion.objects.get().is_frozen
    response = senior_client.post(edit_url, dict(form, neuroticism="0.95"))
    assert response.status_code == 302
    detail = senior_client.get(response.url).content.decode()
    assert 'data-diff-field="description"' in detail and "<ins" in detail and "<del" in detail


def test_the_review_forms_are_keyboard_reachable(draft, annotators):
    """Every control is a native input, select, textarea or button with a label."""
    page = login(annotators[0]).get(reverse("review:profile-review", args=["CHAR_01"]))
    body = page.content.decode()
    assert 'tabindex="-1"' not in body
    for name in ("field", "passage", "concern", "suggested_correction"):
        assert f'for="id_{name}"' in body
    assert 'type="radio"' in body and 'name="submit"' in body
