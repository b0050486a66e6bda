"""Profile review (seed 000 §2.2 Stage 1, App. B.3): three reviews with field-level
change requests, the senior's edits as new versions with a diff, guards, freezing."""

import pytest

from annotation.corpus.models import FrozenVersionError, ProfileVersion
from annotation.profile_review.forms import ProfileEditForm
from annotation.profile_review.models import (
    ChangeRequest,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    ReviewError,
    ReviewEvent,
)
from annotation.profile_review.services import change_request_resolve, profile_edit, profile_freeze
from tests.factories import CharacterFactory, ProfileVersionFactory

from .conftest import request_change, submit


def edit_values(version, **changes):
    values = ProfileEditForm.initial_for(version)
    values["core_patterns"] = [values.pop(f"core_pattern_{i}") for i in range(1, 9)]
    values.update(changes)
    return values


@pytest.fixture
def adjudicating(draft, annotators):
    cr = request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    submit("CHAR_01", annotators[1])
    submit("CHAR_01", annotators[2])
    return cr


def test_three_reviews_pass_the_case_to_the_senior(draft, annotators):
    submit("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[1])
    case = ProfileReviewCase.objects.get()
    assert case.status == "reviewing" and case.reviewed_version == draft
    submit("CHAR_01", annotators[2])
    case.refresh_from_db()
    assert case.status == "adjudicating"
    with pytest.raises(ReviewError, match="senior expert is adjudicating"):
        request_change("CHAR_01", annotators[0])


def test_a_change_request_quotes_a_passage_of_its_field(draft, annotators):
    with pytest.raises(ReviewError, match="does not occur in Description"):
        request_change("CHAR_01", annotators[0], passage="words the profile never says")
    assert not ChangeRequest.objects.exists()
    # Whitespace differences (a selection across a line break) still match.
    cr = request_change("CHAR_01", annotators[0], passage="reads   every\nsituation")
    assert cr.status == "open" and cr.field == "description"
    core = request_change("CHAR_01", annotators[0], field="core_pattern_3", passage="habit 3")
    assert core.get_field_display() == "Core pattern 3"


def test_a_recommendation_must_match_the_change_requests(draft, annotators):
    request_change("CHAR_01", annotators[0])
    with pytest.raises(ReviewError, match="Acceptable as-is"):
        submit("CHAR_01", annotators[0], "accept")
    with pytest.raises(ReviewError, match="at least one change request"):
        submit("CHAR_01", annotators[1], "local_revision")
    with pytest.raises(ReviewError, match="Explain"):
        submit("CHAR_01", annotators[1], "flag")
    assert not ProfileReview.objects.filter(submitted_at__isnull=False).exists()
    review = submit("CHAR_01", annotators[0], "local_revision")
    with pytest.raises(ReviewError, match="cannot change"):
        submit("CHAR_01", annotators[0], "local_revision")
    assert review.is_submitted


def test_adjudication_opens_only_when_all_reviews_are_in(draft, annotators, senior):
    cr = request_change("CHAR_01", annotators[0])
    submit("CHAR_01", annotators[0], "local_revision")
    with pytest.raises(ReviewError, match="1 of 3 reviews"):
        change_request_resolve(request_id=cr.pk, arbitrator=senior, status="accepted")
    with pytest.raises(ReviewError, match="Only a arbitrator|Only an? arbitrator"):
        profile_freeze(
            character_key="CHAR_01", arbitrator=annotators[1], suitability_confirmed=True
        )


def test_senior_edit_creates_the_next_version_with_a_field_level_diff(adjudicating, senior, draft):
    values = edit_values(
        draft,
        description="A careful person who tends to read situations for what could go wrong.",
    )
    edit = profile_edit(character_key="CHAR_01", editor=senior, values=values, note="qualified")
    draft.refresh_from_db()
    assert draft.description.startswith("A careful person who reads every situation")  # v1 kept
    v2 = edit.to_version
    assert (v2.number, v2.description) == (2, values["description"])
    assert v2.neuroticism == draft.neuroticism and v2.core_patterns == draft.core_patterns
    assert [c["field"] for c in edit.diff] == ["description"]
    ops = edit.diff[0]["ops"]
    assert [t.strip() for op, t in ops if op == "delete"] == ["reads every situation"]
    assert [t.strip() for op, t in ops if op == "insert"] == ["tends to read situations"]
    assert "".join(t for op, t in ops if op != "delete") == values["description"]
    assert ReviewEvent.objects.filter(action="profile_edit").count() == 1


def test_an_edit_that_changes_nothing_is_refused(adjudicating, senior, draft):
    with pytest.raises(ReviewError, match="Nothing changed"):
        profile_edit(character_key="CHAR_01", editor=senior, values=edit_values(draft))
    assert ProfileVersion.objects.count() == 1


def test_the_anchor_score_changes_only_with_the_seniors_confirmation(adjudicating, senior, draft):
    values = edit_values(draft, neuroticism=0.9, description="Edited prose.")
    with pytest.raises(ReviewError, match="anchor trait score .*Neuroticism.* 0.95.* 0.90"):
        profile_edit(character_key="CHAR_01", editor=senior, values=values)
    assert ProfileVersion.objects.count() == 1 and not ProfileEdit.objects.exists()
    # A non-anchor score may change without the confirmation (App. B.3).
    edit = profile_edit(
        character_key="CHAR_01", editor=senior, values=edit_values(draft, openness=0.72)
    )
    assert edit.to_version.openness == 0.72 and not edit.anchor_change_confirmed
    edit = profile_edit(
        character_key="CHAR_01",
        editor=senior,
        values=edit_values(edit.to_version, neuroticism=0.9),
        confirm_anchor_change=True,
    )
    assert edit.to_version.neuroticism == 0.9 and edit.anchor_change_confirmed


def test_the_neutral_profile_keeps_its_fixed_vector(annotators, senior):
    neutral = ProfileVersionFactory(
        character=CharacterFactory(key="CHAR_11"),
        number=1,
        openness=0.5,
        conscientiousness=0.5,
        extraversion=0.5,
        agreeableness=0.5,
        neuroticism=0.5,
    )
    # One local revision request: a profile all three accepted as-is takes no edit at all.
    request_change("CHAR_11", annotators[0], field="occupation", passage=neutral.occupation)
    submit("CHAR_11", annotators[0], "local_revision")
    for reviewer in annotators[1:]:
        submit("CHAR_11", reviewer)
    with pytest.raises(ReviewError, match="all-0.50 neutral profile"):
        profile_edit(
            character_key="CHAR_11",
            editor=senior,
            values=edit_values(neutral, extraversion=0.55),
            confirm_anchor_change=True,
        )
    assert ProfileVersion.objects.filter(character__key="CHAR_11").count() == 1
    edit = profile_edit(
        character_key="CHAR_11", editor=senior, values=edit_values(neutral, occupation="Mediator")
    )
    assert edit.to_version.big_five == neutral.big_five


def test_freezing_needs_every_request_resolved_and_the_suitability_check(
    adjudicating, senior, draft
):
    with pytest.raises(ReviewError, match="1 change request"):
        profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)
    with pytest.raises(ReviewError, match="reason"):
        change_request_resolve(request_id=adjudicating.pk, arbitrator=senior, status="rejected")
    edit = profile_edit(
        character_key="CHAR_01",
        editor=senior,
        values=edit_values(draft, description="A careful person who tends to worry."),
    )
    resolved = change_request_resolve(
        request_id=adjudicating.pk, arbitrator=senior, status="accepted"
    )
    assert resolved.resolved_in_version == edit.to_version
    with pytest.raises(ReviewError, match="already accepted"):
        change_request_resolve(
            request_id=adjudicating.pk, arbitrator=senior, status="rejected", reason="x"
        )
    with pytest.raises(ReviewError, match="suitability"):
        profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=False)
    frozen = profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)
    assert frozen == edit.to_version and frozen.is_frozen and frozen.frozen_by == senior
    case = ProfileReviewCase.objects.get()
    assert case.status == "frozen" and case.final_version == frozen


def test_a_frozen_version_cannot_change(adjudicating, senior, draft):
    change_request_resolve(
        request_id=adjudicating.pk, arbitrator=senior, status="rejected", reason="Justified."
    )
    frozen = profile_freeze(character_key="CHAR_01", arbitrator=senior, suitability_confirmed=True)
    frozen.description = "rewritten"
    with pytest.raises(FrozenVersionError):
        frozen.save()
    with pytest.raises(FrozenVersionError):
        frozen.delete()
    with pytest.raises(ReviewError, match="no profile under review"):
        profile_edit(
            character_key="CHAR_01", editor=senior, values=edit_values(draft, occupation="x")
        )
    with pytest.raises(ReviewError, match="frozen: there is nothing left to review"):
        submit("CHAR_01", ProfileReview.objects.first().reviewer)
    frozen.refresh_from_db()
    assert frozen.description != "rewritten"
