"""A near-duplicate pair is flagged before memory generation is launched: the launch page
lists the pairs its plans' characters take part in, and the page and the API refuse the
launch, creating nothing, until the admin confirms it explicitly."""

import pytest
from django.urls import reverse

from annotation.memory_generation.models import MemoryBatch, MemoryRun
from tests.memory_generation.fixtures_runs import plan_for

from .profiles import profile, table4_profiles
from .table4 import PLANTED, TABLE4

pytestmark = pytest.mark.django_db

URL = reverse("memory_generation:run-new")
API = reverse("memory-generation-api:run-list")
FLAGGED = "Character 5 and Character 12"
REFUSAL = (
    "Near-duplicate characters: Character 5 and Character 12 (L1 0.15, ordering distance "
    "0.05). Tick the box to launch anyway, or change the plans or the profiles."
)


def launch_data(plan, **extra):
    data = {
        "plans": [plan.pk],
        "model_name": "",
        "concurrency": 2,
        "seed": 3,
        "tier_a": 0.25,
        "tier_b": 0.35,
        "tier_c": 0.25,
        "tier_d": 0.15,
        "note": "",
    }
    return data | extra


@pytest.fixture
def planted_plan():
    """The eleven Table 4 characters, and a twelfth close to Character 5 with a plan."""
    table4_profiles()
    return plan_for(profile("CHAR_12", PLANTED), {14: 2, 25: 1})


def nothing_made():
    return MemoryRun.objects.count() == 0 and MemoryBatch.objects.count() == 0


def test_the_launch_page_shows_the_flagged_pair_and_the_box(admin_client, planted_plan):
    body = admin_client.get(f"{URL}?plans={planted_plan.pk}").content.decode()
    assert 'data-testid="near-duplicates"' in body
    assert FLAGGED in body and "L1 0.15, ordering distance 0.05" in body
    assert 'name="accept_near_duplicates"' in body
    assert reverse("corpus:distinctness") in body


def test_a_near_duplicate_launch_is_refused_until_confirmed(
    admin_client, planted_plan, memory_provider, django_capture_on_commit_callbacks
):
    for step in ("review", "confirm"):
        response = admin_client.post(URL, {**launch_data(planted_plan), step: "1"})
        body = response.content.decode()
        assert response.status_code == 200
        assert REFUSAL in body, step
        assert 'id="run-confirm"' not in body
        assert nothing_made()

    review = admin_client.post(
        URL, {**launch_data(planted_plan, accept_near_duplicates="on"), "review": "1"}
    ).content.decode()
    assert 'id="run-confirm"' in review and REFUSAL not in review
    confirmation = review[review.index('data-testid="run-confirmation"') :]
    assert 'data-testid="near-duplicates-accepted"' in confirmation and FLAGGED in confirmation
    assert 'type="hidden" name="accept_near_duplicates" value="True"' in confirmation
    assert nothing_made()

    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(
            URL, {**launch_data(planted_plan, accept_near_duplicates="True"), "confirm": "1"}
        )
    run = MemoryRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("memory_generation:run-detail", args=[run.pk])
    assert list(run.plans.all()) == [planted_plan]


def test_a_distinct_character_launches_without_the_box(
    admin_client, planted_plan, memory_provider, django_capture_on_commit_callbacks
):
    """Character 13 (N high, far from Character 1): the flagged pair of Character 5 and
    Character 12 is not this run's concern."""
    plan = plan_for(profile("CHAR_13", (0.35, 0.30, 0.65, 0.40, 0.95)), {14: 1})
    assert plan.character.key == "CHAR_13"
    body = admin_client.get(f"{URL}?plans={plan.pk}").content.decode()
    assert 'data-testid="near-duplicates"' not in body
    assert 'name="accept_near_duplicates"' not in body
    review = admin_client.post(URL, {**launch_data(plan), "review": "1"}).content.decode()
    assert 'id="run-confirm"' in review and FLAGGED not in review
    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(URL, {**launch_data(plan), "confirm": "1"})
    assert response.status_code == 302
    assert list(MemoryRun.objects.get().plans.all()) == [plan]


def test_the_plan_s_own_profile_version_is_the_one_checked(admin_client, planted_plan):
    """A later frozen version of Character 12 far from Character 5 does not change what
    the plan (made for version 1) would generate for."""
    profile("CHAR_12", TABLE4["CHAR_10"], number=2)
    response = admin_client.post(URL, {**launch_data(planted_plan), "review": "1"})
    assert REFUSAL in response.content.decode()
    assert nothing_made()


def test_the_api_refuses_the_same_launch_until_confirmed(
    admin_client, planted_plan, memory_provider
):
    body = {"plans": [planted_plan.pk], "start": False}
    refused = admin_client.post(API, body, content_type="application/json")
    assert refused.status_code == 400
    assert refused.json()["fields"]["accept_near_duplicates"] == [REFUSAL]
    assert nothing_made()
    accepted = admin_client.post(
        API, {**body, "accept_near_duplicates": True}, content_type="application/json"
    )
    assert accepted.status_code == 201, accepted.content
    assert MemoryRun.objects.get().pk == accepted.json()["id"]
