"""Autosaved drafts of the review forms (core.drafts): saved for their
owner only, behind the same permission as the form, restored when the page opens, and
gone once the form is submitted."""

import pytest
from django.urls import reverse

from core.drafts import FormDraft
from core.roles import Role
from tests.factories import UserFactory

from .conftest import ALL_MEET, approve, login, submit

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
NOT_SAVED = "Not saved yet — changes save automatically."


def test_a_profile_review_draft_is_its_reviewers_alone(draft, annotators, senior):
    mine, other, _ = annotators
    url = reverse("review:profile-review-draft", args=["CHAR_01"])
    page_url = reverse("review:profile-review", args=["CHAR_01"])
    assert NOT_SAVED in login(mine).get(page_url).content.decode()

    saved = login(mine).post(
        url, {"explanation": "Half a thought", "trait_alignment": "meets", "bogus": "x"}, **HTMX
    )
    assert saved.status_code == 200 and saved.content.decode().startswith("Draft saved ")
    stored = FormDraft.objects.get(user=mine)
    assert stored.key == "profile-review:CHAR_01:v1"
    assert stored.data == {"explanation": "Half a thought", "trait_alignment": "meets"}

    body = login(mine).get(page_url).content.decode()
    assert "Half a thought" in body and "Draft saved " in body
    # Another reviewer neither sees it nor can write to it through someone else's key.
    assert "Half a thought" not in login(other).get(page_url).content.decode()
    login(other).post(url, {"explanation": "Mine"}, **HTMX)
    assert FormDraft.objects.get(user=mine).data["explanation"] == "Half a thought"
    # Other roles are refused; a GET goes to the page.
    assert login(senior).post(url, {"explanation": "x"}, **HTMX).status_code == 403
    assert login(mine).get(url).url == page_url


def test_submitting_the_review_clears_its_draft_and_a_closed_review_refuses_drafts(
    draft, annotators
):
    mine = annotators[0]
    client = login(mine)
    client.post(
        reverse("review:profile-review-draft", args=["CHAR_01"]), {"explanation": "x"}, **HTMX
    )
    client.post(
        reverse("review:profile-review", args=["CHAR_01"]),
        {**ALL_MEET, "recommendation": "accept", "submit": "Submit review"},
    )
    assert not FormDraft.objects.exists()
    refused = client.post(
        reverse("review:profile-review-draft", args=["CHAR_01"]), {"explanation": "y"}, **HTMX
    )
    assert refused.status_code == 403 and not FormDraft.objects.exists()


def test_a_rating_draft_is_its_raters_alone(scenario, scenario_reviewers):
    a, b = scenario_reviewers
    url = reverse("review:scenario-rating-draft", args=["SCN_SCHOOL_AGE_1"])
    # Before pass 2 opens nobody may rate, so nobody keeps a rating draft.
    assert login(a).post(url, {"duty": "6"}, **HTMX).status_code == 403
    approve("SCN_SCHOOL_AGE_1", a)
    approve("SCN_SCHOOL_AGE_1", b)
    saved = login(a).post(url, {"duty": "6", "note": "Mostly duty."}, **HTMX)
    assert saved.status_code == 200 and saved.content.decode().startswith("Draft saved ")
    assert FormDraft.objects.get(user=a).data == {"duty": "6", "note": "Mostly duty."}

    page = login(a).get(reverse("review:scenario-review", args=["SCN_SCHOOL_AGE_1"]))
    assert "Mostly duty." in page.content.decode()
    assert 'value="6" autocomplete="off" checked' in page.content.decode()
    other = login(b).get(reverse("review:scenario-review", args=["SCN_SCHOOL_AGE_1"]))
    assert "Mostly duty." not in other.content.decode()
    assert NOT_SAVED in other.content.decode()
    annotator = UserFactory(roles=[Role.PRIMARY_ANNOTATOR])
    assert login(annotator).post(url, {"duty": "1"}, **HTMX).status_code == 403


def test_the_ratings_are_seven_point_scales_and_submitting_clears_the_draft(
    scenario, scenario_reviewers
):
    a, b = scenario_reviewers
    approve("SCN_SCHOOL_AGE_1", a)
    approve("SCN_SCHOOL_AGE_1", b)
    client = login(a)
    page = client.get(reverse("review:scenario-review", args=["SCN_SCHOOL_AGE_1"]))
    body = page.content.decode()
    assert body.count('name="duty"') == 7
    assert "1 not present" in body and "7 strongly present" in body
    client.post(
        reverse("review:scenario-rating-draft", args=["SCN_SCHOOL_AGE_1"]), {"duty": "3"}, **HTMX
    )
    scores = dict(
        duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2
    )
    refused = client.post(reverse("review:scenario-rate", args=["SCN_SCHOOL_AGE_1"]), scores)
    assert "Rate Sociality from 1 to 7." in refused.content.decode()
    client.post(
        reverse("review:scenario-rate", args=["SCN_SCHOOL_AGE_1"]), dict(scores, sociality=5)
    )
    assert not FormDraft.objects.exists()


def test_freezing_asks_for_confirmation_in_the_page(draft, annotators, senior):
    for reviewer in annotators:
        submit("CHAR_01", reviewer)
    body = login(senior).get(reverse("review:profile-adjudicate", args=["CHAR_01"]))
    assert 'data-confirm="Freeze this version' in body.content.decode()
    assert "cannot be undone" in body.content.decode()
