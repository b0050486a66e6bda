"""The arbitration pages as an arbitrator reads them: no "Reference response" before the
pair has one, provenance said once, no link the arbitrator cannot follow, and every
final decision asks for confirmation saying what cannot be undone (issue 21)."""

import pytest
from django.urls import reverse

from adjudication.arbitration import services
from adjudication.arbitration.models import ReferenceResponse
from tests.comparison.helpers import assign, judge, make_pair, people

pytestmark = pytest.mark.django_db


@pytest.fixture
def escalated():
    who = people()
    pair = make_pair()
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    pair.refresh_from_db()
    assert pair.status == "escalated"
    return {**who, "pair": pair}


def page_of(client, user, pair):
    client.force_login(user)
    response = client.get(reverse("adjudication:pair", kwargs={"pair_id": pair.pk}))
    assert response.status_code == 200
    return response.content.decode()


def test_no_reference_response_before_the_pair_has_one(client, escalated):
    pair = escalated["pair"]
    body = page_of(client, escalated["arbitrator"], pair)
    assert "Reference response" not in body and 'data-testid="reference"' not in body
    # A reference imported from a release is an earlier one, not this pair's decision.
    ReferenceResponse.objects.create(
        character=pair.character,
        scenario=pair.scenario,
        summary="Imported summary.",
        final_decision="Imported decision.",
        decision_type="imported",
    )
    body = page_of(client, escalated["arbitrator"], pair)
    assert "Reference response" not in body
    assert 'data-testid="earlier-reference"' in body and "Imported from a release" in body


def test_the_reference_names_its_arbitrator_once(client, escalated):
    pair, arb = escalated["pair"], escalated["arbitrator"]
    source = pair.candidates.get(family="gpt")
    services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=arb,
        kind="adopted",
        candidate_id=source.pk,
        fields={},
    )
    body = page_of(client, arb, pair)
    assert "Reference response · Adopted by cmp-arbitrator" in body
    assert "by the arbitrator by" not in body
    assert ReferenceResponse.objects.get(superseded_at=None).provenance == (
        "Adopted by cmp-arbitrator"
    )


def test_the_arbitrators_queue_has_no_link_they_cannot_follow(client, escalated):
    assign_url = reverse("comparison:assign")
    for name in ("queue", "decided"):
        client.force_login(escalated["arbitrator"])
        body = client.get(reverse(f"adjudication:{name}")).content.decode()
        assert f'href="{assign_url}"' not in body
        assert client.get(assign_url).status_code == 403
        client.force_login(escalated["admin"])
        body = client.get(reverse(f"adjudication:{name}")).content.decode()
        assert f'href="{assign_url}"' in body and "(admins)" not in body


def test_recording_a_decision_asks_for_confirmation(client, escalated):
    pair = escalated["pair"]
    body = page_of(client, escalated["arbitrator"], pair)
    # from the form's opening tag: its data-confirm-* attributes may come before its id
    form = body[body.rindex("<form", 0, body.index('id="arbitration-form"')) :]
    decide = form[form.index('name="decide"') - 200 : form.index('name="decide"') + 400]
    assert "data-confirm=" in decide and "cannot be undone" in decide
    assert 'data-confirm-adopted="Adopt Candidate {candidate} as-is' in form
    for kind in ("adopted", "edited", "rewritten", "discarded"):
        assert f"data-confirm-{kind}=" in form and f"data-confirm-label-{kind}=" in form
    preview = form[form.index('name="preview"') - 200 : form.index('name="preview"') + 100]
    assert "data-confirm" not in preview  # a preview is not final


def test_the_home_card_counts_in_plain_english(client, escalated):
    client.force_login(escalated["arbitrator"])
    body = client.get("/").content.decode()
    assert "1 escalated comparison awaiting arbitration" in body and "(s)" not in body
