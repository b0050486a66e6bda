"""Text limits over HTTP in adjudication (issue #24 points 2-3): the consensus judgment
over the API (the issue's 1,048,576-character rationale), arbitration (page and API),
MCQ item review and its revise-form draft (page and API). Each refusal is a 400 or a
form error the person sees, names the field and the limit (or the control character),
and stores nothing; the services refuse the same text for any other caller."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from adjudication.arbitration import services as arbitration
from adjudication.arbitration.models import ArbitrationDecision
from adjudication.mcq.models import McqItem, McqReviewDecision
from adjudication.mcq.services import item_assembly
from adjudication.mcq.versions import ItemEditRejected, revise_item
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from core.drafts import FormDraft
from core.roles import Role
from core.text_rules import NOTE, TEXT
from tests.api.conftest import token_client
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory
from tests.mcq.conftest import KEY, PLAUSIBLE, flag, reference

pytestmark = pytest.mark.django_db

MEBIBYTE = 1_048_576
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


def session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- Consensus: the comparison judgment over the API ------------------------------------


@pytest.fixture
def assignments():
    who = people()
    pair = make_pair(key="CHAR_91")
    assigned = assign(pair, who["annotators"], who["admin"])
    return who, [assigned[a.pk] for a in who["annotators"]]


def judgment(**changes):
    return {
        "suitability": "suitable",
        "selected_letter": "A",
        "rating": "as_is",
        "selection_rationale": "Grounded in the activated memories.",
        **changes,
    }


def test_a_mebibyte_rationale_over_the_api_is_refused_and_nothing_stored(assignments):
    who, mine = assignments
    client = token_client(who["annotators"][0])
    url = reverse("comparison-api:judgment", args=[mine[0].public_id])
    answer = client.post(url, judgment(selection_rationale="x" * MEBIBYTE), format="json")
    assert answer.status_code == 400
    message = answer.json()["fields"]["selection_rationale"][0]
    assert "Selection rationale is limited to" in message and f"{MEBIBYTE:,}" in message
    assert not ComparisonJudgment.objects.exists()


def test_a_nul_in_a_judgment_note_over_the_api_is_refused(assignments):
    who, mine = assignments
    client = token_client(who["annotators"][0])
    url = reverse("comparison-api:judgment", args=[mine[0].public_id])
    answer = client.post(url, judgment(persona_consistency_note="a\x00b"), format="json")
    assert answer.status_code == 400
    assert "control character (NUL)" in answer.json()["fields"]["persona_consistency_note"][0]
    assert not ComparisonJudgment.objects.exists()
    fine = client.post(url, judgment(persona_consistency_note="tab\there\nline"), format="json")
    assert fine.status_code == 201


# --- Arbitration --------------------------------------------------------------------------


@pytest.fixture
def escalated():
    who = people()
    pair = make_pair(key="CHAR_92")
    a = list(assign(pair, who["annotators"], who["admin"]).values())
    judge(a[0], family="claude")
    judge(a[1], family="claude", rating="partial", guidance="Name the teacher.")
    judge(a[2], family="gpt")
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED
    return {**who, "pair": pair}


REWRITE = {
    "kind": "rewritten",
    "summary": "I remember the library.",
    "emotional_tone": "torn",
    "core_reasoning": "",
    "final_decision": "I water the plants, then call Mina.",
    "reason": "",
}


def test_an_over_long_rewrite_on_the_page_shows_the_limit_and_records_nothing(escalated):
    pair = escalated["pair"]
    page = session(escalated["arbitrator"])
    url = reverse("adjudication:pair", kwargs={"pair_id": pair.pk})
    answer = page.post(url, {**REWRITE, "final_decision": "x" * (TEXT + 1), "decide": "1"})
    assert answer.status_code in (200, 400)
    body = answer.content.decode()
    assert "Final decision is limited to 20,000 characters; this one has 20,001." in body
    assert not ArbitrationDecision.objects.exists()
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ESCALATED


def test_an_over_long_or_nul_reason_over_the_api_is_a_400_naming_the_field(escalated):
    pair = escalated["pair"]
    client = token_client(escalated["arbitrator"])
    url = reverse("adjudication-api:decide", args=[pair.pk])
    long = client.post(url, {"kind": "discarded", "reason": "x" * (NOTE + 1)}, format="json")
    assert long.status_code == 400
    assert "Reason / note is limited to 4,000 characters" in long.json()["fields"]["reason"][0]
    nul = client.post(url, {"kind": "discarded", "reason": "unfit\x00"}, format="json")
    assert nul.status_code == 400
    assert "control character (NUL)" in nul.json()["fields"]["reason"][0]
    assert not ArbitrationDecision.objects.exists()


def test_the_arbitration_services_refuse_the_same_texts(escalated):
    pair, arbitrator = escalated["pair"], escalated["arbitrator"]
    with pytest.raises(arbitration.ArbitrationError, match="Final decision is limited to 20,000"):
        arbitration.arbitration_decide(
            pair_id=pair.pk,
            arbitrator=arbitrator,
            kind="rewritten",
            fields={**REWRITE, "final_decision": "x" * MEBIBYTE},
        )
    with pytest.raises(arbitration.ArbitrationError, match="Reason / note contains a control"):
        arbitration.arbitration_discard(pair_id=pair.pk, arbitrator=arbitrator, reason="a\x01")
    with pytest.raises(arbitration.ArbitrationError, match="Reason for reopening is limited"):
        arbitration.arbitration_reopen(
            pair_id=pair.pk, admin=escalated["admin"], reason="x" * (NOTE + 1)
        )
    assert not ArbitrationDecision.objects.exists()


# --- MCQ item review and its revise-form draft ------------------------------------------


@pytest.fixture
def flagged():
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    target = reference("CHAR_01", scenario, KEY)
    for key, text in PLAUSIBLE.items():
        reference(key, scenario, text)
    item = item_assembly.mcq_item_assemble(reference_id=target.pk, selector=False, dispatch=False)
    return flag(item)


def distractor(item):
    return next(o.label for o in item.options.order_by("label") if not o.is_correct)


def test_the_revise_draft_page_refuses_an_over_long_content_and_saves_nothing(flagged):
    senior = UserFactory(roles=[Role.ARBITRATOR])
    url = reverse("mcq:revise-draft", args=[flagged.pk])
    label = distractor(flagged)
    answer = session(senior).post(url, {"label": label, "content": "x" * (TEXT + 1)}, **HTMX)
    assert answer.status_code == 200
    assert answer.content.decode() == (
        "Not saved: Content is limited to 20,000 characters; this one has 20,001."
    )
    nul = session(senior).post(url, {"label": label, "note": "draft\x00note"}, **HTMX)
    assert nul.content.decode().startswith("Not saved: Note contains a control character (NUL)")
    assert not FormDraft.objects.exists()


def test_the_revise_draft_api_refuses_a_nul_and_saves_nothing(flagged):
    client = token_client(UserFactory(roles=[Role.ARBITRATOR]))
    url = reverse("mcq-api:revise-draft", args=[flagged.pk])
    answer = client.put(url, {"label": distractor(flagged), "note": "draft\x00note"}, format="json")
    assert answer.status_code == 400
    assert "Note contains a control character (NUL)" in answer.json()["fields"]["note"][0]
    long = client.put(url, {"content": "x" * (TEXT + 1)}, format="json")
    assert long.status_code == 400
    assert "Content is limited to 20,000" in long.json()["fields"]["content"][0]
    assert not FormDraft.objects.exists()
    saved = client.put(url, {"label": distractor(flagged), "note": "R2"}, format="json")
    assert saved.status_code == 200


def test_a_review_action_with_an_over_long_note_is_refused_on_page_and_api(flagged):
    senior = UserFactory(roles=[Role.ARBITRATOR])
    body = {"action": "retain", "version": flagged.version, "note": "x" * (NOTE + 1)}
    api = token_client(senior).post(reverse("mcq-api:decide", args=[flagged.pk]), body)
    assert api.status_code == 400
    assert "Note is limited to 4,000 characters" in api.json()["fields"]["note"][0]
    page = session(senior).post(reverse("mcq:item", args=[flagged.pk]), body)
    assert page.status_code in (200, 400)
    assert "Note is limited to 4,000 characters" in page.content.decode()
    assert not McqReviewDecision.objects.exists()
    flagged.refresh_from_db()
    assert flagged.status == McqItem.Status.FLAGGED


def test_an_item_edit_refuses_an_over_long_option_for_any_caller(flagged):
    senior = UserFactory(roles=[Role.ARBITRATOR])
    version = flagged.version
    with pytest.raises(ItemEditRejected, match="Option B is limited to 20,000 characters"):
        revise_item(
            flagged,
            user=senior,
            origin="review",
            note="R2",
            options=[{"label": "B", "content": "x" * MEBIBYTE}],
        )
    flagged.refresh_from_db()
    assert flagged.version == version
