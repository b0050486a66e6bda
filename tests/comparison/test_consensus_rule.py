"""The consensus rule cannot be weakened (seed 000 App. D.2): every pair is judged by
exactly three distinct primary annotators (a protocol constant, not a form field), a pair
routes only once all three have submitted, and nobody both judges and arbitrates a pair."""

import pytest
from django.urls import reverse

from adjudication.arbitration import services as arbitration_services
from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from adjudication.consensus.services import pairs_assign
from annotation.comparison import services
from annotation.comparison.models import ComparisonPair, PairAssignment
from core.roles import Role
from tests.factories import UserFactory

from .helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db


def test_the_assignment_page_has_no_overlap_and_refuses_two_annotators(client):
    who = people()
    make_pair()
    client.force_login(who["admin"])
    page = client.get(reverse("comparison:assign")).content.decode()
    assert 'name="overlap"' not in page and 'name="annotators"' in page
    two = [a.pk for a in who["annotators"][:2]]
    response = client.post(
        reverse("comparison:assign"), {"annotators": two, "overlap": "2", "batch_size": "0"}
    )
    assert response.status_code == 200
    assert "judged by 3 distinct primary annotators" in response.content.decode()
    assert not PairAssignment.objects.exists()


def test_the_assignment_page_gives_every_pair_to_three_annotators(client):
    who = people()
    pairs = [make_pair(key=f"CHAR_8{i}") for i in range(2)]
    client.force_login(who["admin"])
    response = client.post(
        reverse("comparison:assign"),
        {"annotators": [a.pk for a in who["annotators"]], "batch_size": "0"},
    )
    assert response.status_code == 302
    for pair in pairs:
        assert set(pair.assignments.values_list("annotator", flat=True)) == {
            a.pk for a in who["annotators"]
        }


def test_two_as_is_votes_are_not_a_unanimous_adoption():
    who = people()
    pair = make_pair()
    # A pair left with two assignees (as an overlap of two assigned it).
    permutation = list(pair.candidates.values_list("pk", flat=True))
    for annotator in who["annotators"][:2]:
        PairAssignment.objects.create(pair=pair, annotator=annotator, permutation=permutation)
    for assignment in PairAssignment.objects.filter(pair=pair):
        judge(assignment, family="gemini")
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ANNOTATING
    assert not ReferenceResponse.objects.exists()
    # Assigning fills the pair up to three: only the third annotator joins.
    assert (
        pairs_assign(
            user=who["admin"],
            pair_ids=[pair.pk],
            annotator_ids=[a.pk for a in who["annotators"]],
        )
        == 1
    )
    third = PairAssignment.objects.get(pair=pair, annotator=who["annotators"][2])
    judge(third, family="gemini")
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ADOPTED
    assert ReferenceResponse.objects.get().decision_type == "unanimous"


def test_nobody_arbitrates_a_pair_they_judged(client):
    who = people()
    both = UserFactory(username="cmp-both", roles=[Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR])
    pair = make_pair()
    a = assign(pair, [both, *who["annotators"][:2]], who["admin"])
    judge(a[both.pk], family="claude")
    judge(a[who["annotators"][0].pk], family="claude")
    judge(a[who["annotators"][1].pk], family="gpt")
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED
    claude = pair.candidates.get(family="claude")
    refused = (
        r"You judged Character 41 × .*: your comparison judgment \(round 1, version 1, submitted"
    )
    with pytest.raises(arbitration_services.ArbitrationError, match=refused):
        arbitration_services.arbitration_resolve(
            pair_id=pair.pk, arbitrator=both, kind="adopted", candidate_id=claude.pk
        )
    with pytest.raises(arbitration_services.ArbitrationError, match=refused):
        arbitration_services.arbitration_discard(pair_id=pair.pk, arbitrator=both, reason="x")
    # The page says so and offers no decision form; a post changes nothing.
    client.force_login(both)
    url = reverse("adjudication:pair", kwargs={"pair_id": pair.pk})
    body = client.get(url).content.decode()
    assert "another arbitrator decides it" in body and 'id="arbitration-form"' not in body
    client.post(url, {"kind": "discarded", "reason": "Unfit.", "decide": "1"})
    assert not ArbitrationDecision.objects.exists()
    # Another arbitrator decides.
    arbitration_services.arbitration_resolve(
        pair_id=pair.pk, arbitrator=who["arbitrator"], kind="adopted", candidate_id=claude.pk
    )
    assert ComparisonPair.objects.get().status == ComparisonPair.Status.RESOLVED


def test_nobody_is_assigned_a_pair_they_arbitrated(client):
    who = people()
    both = UserFactory(username="cmp-both", roles=[Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR])
    pair = make_pair()
    # A decision of an earlier round, the pair since back with the annotators.
    decision = ArbitrationDecision.objects.create(
        pair=pair, kind="discarded", arbitrator=both, reason="Ages conflict."
    )
    team = [both.pk, *(a.pk for a in who["annotators"][:2])]
    with pytest.raises(
        services.ComparisonError,
        match=rf"cmp-both arbitrated CHAR_41 × .* \(arbitration decision {decision.pk}: ",
    ):
        pairs_assign(user=who["admin"], pair_ids=[pair.pk], annotator_ids=team)
    assert not PairAssignment.objects.exists()
    client.force_login(who["admin"])
    response = client.post(reverse("comparison:assign"), {"annotators": team, "batch_size": "0"})
    assert f"arbitration decision {decision.pk}" in response.content.decode()
    assert not PairAssignment.objects.exists()
    # Without them, the pair is assigned.
    others = [*who["annotators"]]
    assert pairs_assign(
        user=who["admin"], pair_ids=[pair.pk], annotator_ids=[a.pk for a in others]
    ) == len(others)


def test_a_deactivated_annotator_is_neither_offered_nor_assigned_new_pairs(client):
    """Someone who left the lab (deactivated on the team page, issue #36) keeps their
    records but takes no new work: the assignment page does not list them, and an
    assignment naming them is refused whole, naming them."""
    who = people()
    pair = make_pair()
    gone = who["annotators"][0]
    gone.is_active = False
    gone.save(update_fields=["is_active"])
    client.force_login(who["admin"])
    page = client.get(reverse("comparison:assign")).content.decode()
    assert gone.username not in page
    assert all(a.username in page for a in who["annotators"][1:])
    with pytest.raises(services.ComparisonError, match=rf"{gone.username} is deactivated"):
        pairs_assign(
            user=who["admin"], pair_ids=[pair.pk], annotator_ids=[a.pk for a in who["annotators"]]
        )
    assert not PairAssignment.objects.exists()
