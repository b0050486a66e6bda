"""A profile all three reviewers accepted as-is takes no senior edit (seed 000 App. B.3:
"profiles accepted unanimously were retained unchanged"). The redraft of such a profile
is refused already (tests/character_drafting/test_redraft_scope.py); the senior's own
field-level edit is refused too, by the service, the page's form and the API, and the
adjudication page offers no edit form for it. The senior still freezes it unchanged."""

import pytest
from django.urls import reverse

from annotation.corpus.models import ProfileVersion
from annotation.profile_review.models import ProfileEdit, ReviewError
from annotation.profile_review.services import profile_edit, profile_freeze

from .conftest import login, request_change, submit
from .test_profile_review import edit_values


@pytest.fixture
def accepted(draft, annotators):
    """CHAR_01 v1 with three "Acceptable as-is" reviews: the senior is adjudicating."""
    for reviewer in annotators:
        submit("CHAR_01", reviewer)
    return draft


def _edit_form(version, **changes) -> dict:
    """The page's edit form as the senior posts it (every field, one changed)."""
    values = edit_values(version, **changes)
    patterns = values.pop("core_patterns")
    form = {k: v for k, v in values.items() if v is not None}
    form.update({f"core_pattern_{i}": p for i, p in enumerate(patterns, start=1)})
    return form


def test_the_senior_cannot_edit_a_unanimously_accepted_profile(accepted, senior):
    """App. B.3: unanimously accepted profiles are retained unchanged."""
    with pytest.raises(ReviewError, match="accepted as-is by all 3 reviewers") as refused:
        profile_edit(
            character_key="CHAR_01",
            editor=senior,
            values=edit_values(accepted, occupation="Night-shift archivist"),
        )
    assert "freeze it as it is" in " ".join(refused.value.messages)
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 1
    assert not ProfileEdit.objects.exists()
    # The final suitability check freezes the reviewed version itself, unchanged.
    frozen = profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)
    assert frozen == accepted and frozen.occupation == accepted.occupation


def test_one_local_revision_request_leaves_the_edit_open(draft, annotators, senior):
    """App. B.3: with a change request the senior revises at field level as before."""
    request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    for reviewer in annotators[1:]:
        submit("CHAR_01", reviewer)
    edit = profile_edit(
        character_key="CHAR_01",
        editor=senior,
        values=edit_values(draft, description="A careful person who tends to worry."),
    )
    assert edit.to_version.number == 2


def test_the_page_offers_no_edit_of_an_accepted_profile_and_refuses_a_post(accepted, senior):
    """App. B.3: the adjudication page says why there is no edit, and still offers the
    freeze; a hand-made POST to the edit URL is refused with the same reason."""
    client = login(senior)
    body = client.get(reverse("review:profile-adjudicate", args=["CHAR_01"])).content.decode()
    assert 'data-testid="accepted-as-is"' in body
    assert 'id="edit-h"' not in body and 'name="core_pattern_1"' not in body
    assert 'id="freeze-h"' in body
    response = client.post(
        reverse("review:profile-edit", args=["CHAR_01"]),
        _edit_form(accepted, occupation="Night-shift archivist"),
    )
    assert response.status_code == 200
    refused = response.content.decode()
    assert "accepted as-is by all 3 reviewers" in refused
    assert "App. B" not in refused  # the senior reads the rule in words, not a citation
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 1


def test_the_page_offers_the_edit_when_a_reviewer_asked_for_a_change(draft, annotators, senior):
    request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    for reviewer in annotators[1:]:
        submit("CHAR_01", reviewer)
    body = (
        login(senior).get(reverse("review:profile-adjudicate", args=["CHAR_01"])).content.decode()
    )
    assert 'id="edit-h"' in body and 'data-testid="accepted-as-is"' not in body


def test_the_api_refuses_the_edit_of_an_accepted_profile(accepted, senior):
    """App. B.3, through the API's edit endpoint (the same service)."""
    client = login(senior)
    response = client.post(
        reverse("review-api:profile-edit", args=["CHAR_01"]),
        {"occupation": "Night-shift archivist"},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "accepted as-is by all 3 reviewers" in response.content.decode()
    assert ProfileVersion.objects.filter(character__key="CHAR_01").count() == 1
