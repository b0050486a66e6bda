"""Done when (issue #23): one comparison pair goes from its three annotators' judgments to
an adopted reference through the API alone, with token-only clients of three roles
(primary annotators, the arbitrator, the admin): once by consensus (unanimous, as-is),
once by escalation and the arbitrator's decision. The reference is the record MCQ
assembly reads next, and the roles that may read it see it through the API."""

import pytest
from django.urls import reverse

from adjudication.mcq.services.item_assembly import assembly_references
from annotation.comparison.models import ComparisonPair
from core.roles import Role
from tests.comparison.helpers import MODEL_NAMES, TEXTS, make_pair

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(api_user):
    """Three primary annotators, an arbitrator and an admin, each with a token client."""
    annotators = [
        api_user(Role.PRIMARY_ANNOTATOR, username=f"p2r-annotator-{i}") for i in (1, 2, 3)
    ]
    return {
        "annotators": annotators,
        "arbitrator": api_user(Role.ARBITRATOR, username="p2r-arbitrator"),
        "admin": api_user(Role.ADMIN, username="p2r-admin"),
    }


@pytest.fixture
def assigned(team):
    """A pair of three candidates (tests/comparison/helpers.py), assigned to the three
    annotators by the admin through the comparison service."""
    from annotation.comparison.services import comparison_assign

    pair = make_pair(key="CHAR_91")
    comparison_assign(
        user=team["admin"][0],
        pair_ids=[pair.pk],
        annotator_ids=[user.pk for user, _ in team["annotators"]],
    )
    return pair


def my_comparison(client) -> tuple[str, dict]:
    """The annotator's one queued comparison, as the API shows it: (assignment, page)."""
    queue = client.get(reverse("comparison-api:queue"), {"state": "remaining"})
    assert queue.status_code == 200
    [row] = queue.json()["results"]
    assert row["character"] == "CHAR_91" and row["routed"] is False
    page = client.get(reverse("comparison-api:pair", args=[row["assignment"]]))
    assert page.status_code == 200
    return row["assignment"], page


def letter_of(page, family) -> str:
    """The letter under which this annotator sees ``family``'s candidate, found by its
    text (the API names no family)."""
    body = page.json()
    return next(c["letter"] for c in body["candidates"] if c["summary"] == TEXTS[family][0])


def submit(client, assignment, page, letter, *, rating="as_is", guidance=""):
    draft_url = reverse("comparison-api:draft", args=[assignment])
    draft = client.get(draft_url)
    saved = client.put(
        draft_url, {"selected_letter": letter}, format="json", HTTP_IF_MATCH=draft["ETag"]
    )
    assert saved.status_code == 200
    answer = client.post(
        reverse("comparison-api:judgment", args=[assignment]),
        {
            "suitability": "suitable",
            "selected_letter": letter,
            "rating": rating,
            "selection_rationale": "The decision follows from the character's memories.",
            "revision_guidance": guidance,
        },
        format="json",
        HTTP_IF_MATCH=page["ETag"],
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def reference_through_the_api(client, pair_id) -> dict:
    answer = client.get(reverse("adjudication-api:pair", args=[pair_id]))
    assert answer.status_code == 200
    return answer.json()["reference"]


def test_a_unanimous_pair_becomes_the_reference_by_consensus(team, assigned):
    for _, client in team["annotators"]:
        assignment, page = my_comparison(client)
        judgment = submit(client, assignment, page, letter_of(page, "gemini"))
        assert judgment["version"] == 1
    assigned.refresh_from_db()
    assert assigned.status == ComparisonPair.Status.ADOPTED
    [reference] = assembly_references().filter(character=assigned.character)
    assert reference.decision_type == "unanimous"
    assert reference.source_family == "gemini"
    assert reference.final_decision == TEXTS["gemini"][1]

    for role in ("arbitrator", "admin"):
        _, client = team[role]
        listed = client.get(reverse("adjudication-api:pairs"), {"status": "adopted"}).json()
        assert [r["id"] for r in listed["results"]] == [assigned.pk]
        shown = reference_through_the_api(client, assigned.pk)
        assert shown["id"] == reference.pk
        assert shown["final_decision"] == reference.final_decision
        assert shown["provenance"] == "Adopted unanimously"
        assert shown["source_family"] == ""  # families stay hidden (App. D.2 default)
    # The annotators' own view: the judgment is final, and no family, model or reference.
    _, client = team["annotators"][0]
    queue = client.get(reverse("comparison-api:queue")).json()["results"]
    assert [r["routed"] for r in queue] == [True]
    page = client.get(reverse("comparison-api:pair", args=[queue[0]["assignment"]]))
    assert page.json()["is_open"] is False
    assert not any(name in page.content.decode() for name in MODEL_NAMES.values())
    assert client.get(reverse("adjudication-api:pair", args=[assigned.pk])).status_code == 403


def test_an_escalated_pair_becomes_the_reference_by_the_arbitrators_edit(team, assigned):
    choices = [
        ("claude", "as_is", ""),
        ("claude", "partial", "Name the teacher."),
        ("gpt", "as_is", ""),
    ]
    for (_, client), (family, rating, guidance) in zip(team["annotators"], choices, strict=True):
        assignment, page = my_comparison(client)
        submit(client, assignment, page, letter_of(page, family), rating=rating, guidance=guidance)
    assigned.refresh_from_db()
    assert assigned.status == ComparisonPair.Status.ESCALATED
    assert not assembly_references().filter(character=assigned.character).exists()

    _, arbitrator = team["arbitrator"]
    queue = arbitrator.get(reverse("adjudication-api:pairs"), {"status": "escalated"}).json()
    assert [r["id"] for r in queue["results"]] == [assigned.pk]
    pair = arbitrator.get(reverse("adjudication-api:pair", args=[assigned.pk]))
    body = pair.json()
    assert body["can_decide"] is True
    claude = next(c for c in body["candidates"] if c["summary"] == TEXTS["claude"][0])
    guidance = [j["id"] for j in body["judgments"] if j["revision_guidance"]]
    decided = arbitrator.post(
        reverse("adjudication-api:decide", args=[assigned.pk]),
        {
            "kind": "edited",
            "candidate": claude["number"],
            "summary": claude["summary"],
            "emotional_tone": claude["emotional_tone"],
            "core_reasoning": claude["core_reasoning"],
            "final_decision": "I water Ms. Lee's plants, then tell the teacher I am leaving.",
            "guidance_followed": guidance,
        },
        format="json",
        HTTP_IF_MATCH=pair["ETag"],
    )
    assert decided.status_code == 201, decided.content
    assigned.refresh_from_db()
    assert assigned.status == ComparisonPair.Status.RESOLVED
    [reference] = assembly_references().filter(character=assigned.character)
    assert reference.decision_type == "edited"
    assert reference.source_family == "claude"
    assert reference.final_decision.startswith("I water Ms. Lee's plants")
    assert reference.arbitrator.username == "p2r-arbitrator"
    assert decided.json()["reference"]["id"] == reference.pk

    _, admin = team["admin"]
    shown = reference_through_the_api(admin, assigned.pk)
    assert shown["provenance"] == "Edited by p2r-arbitrator"
    assert shown["final_decision"] == reference.final_decision
    assert shown["keyed_word_edit_rate"] > 0
    resolved = admin.get(reverse("adjudication-api:pairs"), {"status": "resolved"}).json()
    assert [r["id"] for r in resolved["results"]] == [assigned.pk]
