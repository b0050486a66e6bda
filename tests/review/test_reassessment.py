"""The joint re-assessment (seed 000 App. C.2) needs both reviewers: one proposes the final
ratings of the dimensions more than one point apart, the other confirms them (or
counter-proposes, which the first then confirms). Only a confirmation of the current
proposal records the final rating and completes the review."""

import pytest
from django.urls import reverse

from annotation.profile_review.models import ReviewError, ReviewEvent
from annotation.scenario_review.models import (
    DiamondsRating,
    FinalDiamondsRating,
    ReassessmentProposal,
    ScenarioReview,
)
from annotation.scenario_review.selectors import scenario_home_queues, scenario_review_queue
from annotation.scenario_review.services import (
    scenario_reassess_confirm,
    scenario_reassess_propose,
)
from tests.factories import UserFactory

from .conftest import approve, login, rate

SID = "SCN_SCHOOL_AGE_1"


@pytest.fixture
def split(scenario, scenario_reviewers):
    """Both reviewers approved and rated SID; adversity (6/3) and deception (2/4) are more
    than one point apart, duty (5/6) one point."""
    first, second = scenario_reviewers
    approve(SID, first)
    approve(SID, second)
    rate(SID, first)
    rate(SID, second, adversity=3, deception=4, duty=6)
    assert ScenarioReview.objects.get().stage == "reassessment"
    return scenario_reviewers


def propose(reviewer, note="", **agreed):
    return scenario_reassess_propose(scenario_id=SID, reviewer=reviewer, agreed=agreed, note=note)


def confirm(reviewer, proposal, agreed=None):
    return scenario_reassess_confirm(
        scenario_id=SID,
        reviewer=reviewer,
        proposal_id=proposal.pk,
        agreed=agreed if agreed is not None else dict(proposal.values),
    )


def test_one_reviewers_proposal_does_not_complete_the_reassessment(split):
    first, second = split
    proposal = propose(first, adversity=5, deception=3, note="The loss is real but small.")
    review = ScenarioReview.objects.get()
    assert review.stage == "reassessment"
    assert not FinalDiamondsRating.objects.exists()
    assert proposal.proposed_by == first and proposal.values == {"adversity": 5, "deception": 3}
    with pytest.raises(ReviewError, match="scn-2 confirms"):
        confirm(first, proposal)  # the proposer cannot confirm their own values
    assert ScenarioReview.objects.get().stage == "reassessment"


def test_the_other_reviewers_confirmation_records_the_final_rating(split):
    first, second = split
    proposal = propose(first, adversity=5, deception=3, note="The loss is real but small.")
    final = confirm(second, proposal)
    assert final.reassessed == ["adversity", "deception"]
    assert (final.adversity, final.deception, final.duty) == (5, 3, 5)  # duty: 5/6 -> 5
    assert final.proposal == proposal and final.recorded_by == second
    assert "The loss is real but small." in final.note
    review = ScenarioReview.objects.get()
    assert review.stage == "complete" and review.completed_at
    # The independent ratings stay as they were submitted.
    assert sorted(DiamondsRating.objects.values_list("adversity", flat=True)) == [3, 6]
    actions = list(ReviewEvent.objects.filter(action__startswith="scenario_reassess"))
    assert [(e.action, e.actor) for e in actions] == [
        ("scenario_reassess_propose", first),
        ("scenario_reassess_confirm", second),
    ]


def test_a_counter_proposal_needs_the_first_reviewers_confirmation(split):
    first, second = split
    original = propose(first, adversity=5, deception=3)
    counter = propose(second, adversity=4, deception=3, note="Adversity is moderate.")
    assert not FinalDiamondsRating.objects.exists()
    with pytest.raises(ReviewError, match="scn-1 confirms"):
        confirm(second, counter)
    final = confirm(first, counter)
    assert (final.adversity, final.deception) == (4, 3) and final.recorded_by == first
    assert original.pk != counter.pk and ReassessmentProposal.objects.count() == 2


def test_a_third_person_cannot_propose_or_confirm(split):
    first, _ = split
    proposal = propose(first, adversity=5, deception=3)
    outsider = UserFactory(username="scn-3", roles=["scenario_reviewer"])
    with pytest.raises(ReviewError, match="Only the two reviewers who rated"):
        confirm(outsider, proposal)
    with pytest.raises(ReviewError, match="Only the two reviewers who rated"):
        propose(outsider, adversity=5, deception=3)
    assert ScenarioReview.objects.get().stage == "reassessment"
    assert not FinalDiamondsRating.objects.exists()


def test_confirming_stale_values_is_refused(split):
    first, second = split
    stale = propose(first, adversity=5, deception=3)
    current = propose(first, adversity=6, deception=3, note="On reflection: strongly present.")
    with pytest.raises(ReviewError, match="no longer the current proposal"):
        confirm(second, stale)
    with pytest.raises(ReviewError, match="no longer the current proposal"):
        # The current proposal's id with the values read before it changed.
        confirm(second, current, agreed={"adversity": 5, "deception": 3})
    assert not FinalDiamondsRating.objects.exists()
    assert confirm(second, current).adversity == 6


def test_a_proposal_covers_exactly_the_split_dimensions_on_the_scale(split):
    first, second = split
    with pytest.raises(ReviewError, match="Rate Deception"):
        propose(first, adversity=5)
    with pytest.raises(ReviewError, match="not: Duty"):
        propose(first, adversity=5, deception=3, duty=7)
    with pytest.raises(ReviewError, match="between 1 and 7"):
        propose(first, adversity=9, deception=3)
    with pytest.raises(ReviewError, match="Nothing to confirm"):
        scenario_reassess_confirm(
            scenario_id=SID, reviewer=second, proposal_id=0, agreed={"adversity": 5}
        )
    propose(first, adversity=5, deception=3)
    with pytest.raises(ReviewError, match="confirm their proposal"):
        propose(second, adversity=5, deception=3)  # the same values: confirm instead
    assert not ReassessmentProposal.objects.exclude(proposed_by=first).exists()


# --- The page and the API ---------------------------------------------------------------


def test_the_page_shows_who_proposed_and_whom_it_waits_for(split):
    first, second = split
    url = reverse("review:scenario-review", args=[SID])
    reassess = reverse("review:scenario-reassess", args=[SID])
    one, two = login(first), login(second)

    page = one.get(url).content.decode()
    assert 'id="reassessment-form"' in page and "Propose these final ratings" in page

    response = one.post(reassess, {"adversity": "5", "deception": "3", "note": "Small loss."})
    assert response.status_code == 302
    assert ScenarioReview.objects.get().stage == "reassessment"
    page = one.get(url).content.decode()
    assert 'data-testid="reassessment-state"' in page
    assert "Proposed by scn-1" in page and "Waiting for scn-2 to confirm" in page
    assert 'id="confirm-form"' not in page  # the proposer has nothing to confirm

    page = two.get(url).content.decode()
    assert 'id="confirm-form"' in page and "Waiting for you to confirm" in page
    proposal = ReassessmentProposal.objects.get()
    response = two.post(
        reverse("review:scenario-reassess-confirm", args=[SID]),
        {"proposal": proposal.pk, "adversity": "5", "deception": "3"},
    )
    assert response.status_code == 302
    assert ScenarioReview.objects.get().stage == "complete"
    page = two.get(url).content.decode()
    assert "Final ratings proposed by scn-1, confirmed by scn-2" in page


def test_a_stale_confirmation_on_the_page_changes_nothing(split):
    first, second = split
    stale = propose(first, adversity=5, deception=3)
    propose(first, adversity=6, deception=3)
    response = login(second).post(
        reverse("review:scenario-reassess-confirm", args=[SID]),
        {"proposal": stale.pk, "adversity": "5", "deception": "3"},
    )
    assert response.status_code == 200
    assert "no longer the current proposal" in response.content.decode()
    assert ScenarioReview.objects.get().stage == "reassessment"


def test_the_api_reports_the_state_and_takes_both_steps(split):
    first, second = split
    detail = reverse("review-api:scenario-review", args=[SID])
    one, two = login(first), login(second)
    response = one.post(
        reverse("review-api:scenario-reassess", args=[SID]),
        {"agreed": {"adversity": 5, "deception": 3}, "note": "Small loss."},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    state = two.get(detail).json()["reassessment"]
    assert state["proposed_by"] == "scn-1" and state["awaiting"] == "scn-2"
    assert state["values"] == {"adversity": 5, "deception": 3}
    assert ScenarioReview.objects.get().stage == "reassessment"

    confirm_url = reverse("review-api:scenario-reassess-confirm", args=[SID])
    refused = one.post(
        confirm_url,
        {"proposal": state["proposal"], "agreed": state["values"]},
        content_type="application/json",
    )
    assert refused.status_code == 400 and "scn-2 confirms" in refused.json()["detail"][0]
    response = two.post(
        confirm_url,
        {"proposal": state["proposal"], "agreed": state["values"]},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["review_stage"] == "complete" and body["final"]["adversity"] == 5
    assert body["reassessment"]["confirmed_by"] == "scn-2"


def test_the_queue_and_home_card_ask_only_the_reviewer_the_proposal_waits_for(split):
    first, second = split
    assert [scenario_home_queues(user=u)["scenario_review"]["count"] for u in split] == [1, 1]
    propose(first, adversity=5, deception=3)
    assert [scenario_home_queues(user=u)["scenario_review"]["count"] for u in split] == [0, 1]
    mine, theirs = (scenario_review_queue(user=u)[0] for u in split)
    assert not mine.needs_you and "awaiting the other reviewer" in mine.your_status
    assert theirs.needs_you and "propose or confirm" in theirs.your_status
    propose(second, adversity=4, deception=3)  # a counter-proposal turns the tables
    assert [scenario_home_queues(user=u)["scenario_review"]["count"] for u in split] == [1, 0]
