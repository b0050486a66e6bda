"""The blinded comparison over the API (issue #23), with token-only clients: the queue
(paginated), the draft (ETag, If-Match), the judgment submit (201, 200 again, 409 once
final) with the page's messages, and the blinding of every answer."""

import pytest
from django.urls import reverse

from annotation.comparison.models import (
    ComparisonDraft,
    ComparisonJudgment,
    ComparisonJudgmentVersion,
    ComparisonPair,
)
from core.roles import Role
from tests.comparison.helpers import MODEL_NAMES, assign, judge, letter_for, make_pair, people

pytestmark = pytest.mark.django_db

FAMILY_WORDS = ("claude", "gpt", "gemini", "Claude", "GPT", "Gemini")


def content(letter, **changes):
    return {
        "suitability": "suitable",
        "selected_letter": letter,
        "rating": "as_is",
        "selection_rationale": "Grounded in the activated memories.",
        **changes,
    }


@pytest.fixture
def world():
    who = people()
    pair = make_pair(key="CHAR_71")
    assigned = assign(pair, who["annotators"], who["admin"])
    return who, pair, [assigned[a.pk] for a in who["annotators"]]


def no_secret(body: str):
    for name in MODEL_NAMES.values():
        assert name not in body
    for word in FAMILY_WORDS:
        assert f'"{word}"' not in body and f" {word} " not in body


def test_the_queue_is_a_paginated_filtered_list_of_own_assignments(world, api_as):
    who, pair, assignments = world
    other = make_pair(key="CHAR_72")
    assign(other, who["annotators"], who["admin"])
    client = api_as(who["annotators"][0])
    answer = client.get(reverse("comparison-api:queue"))
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 2
    assert {r["character"] for r in body["results"]} == {"CHAR_71", "CHAR_72"}
    assert str(assignments[0].public_id) in {r["assignment"] for r in body["results"]}

    judge(assignments[0], family="gpt")
    done = client.get(reverse("comparison-api:queue"), {"state": "done"}).json()
    assert [r["character"] for r in done["results"]] == ["CHAR_71"]
    page = client.get(reverse("comparison-api:queue"), {"page_size": 1, "ordering": "-character"})
    assert page.json()["results"][0]["character"] == "CHAR_72"
    assert page.json()["next"]
    bad = client.get(reverse("comparison-api:queue"), {"ordering": "family"})
    assert bad.status_code == 400
    assert "ordering" in bad.json()


def test_other_roles_are_refused_and_another_annotators_assignment_is_a_404(
    world, api_as, api_user
):
    who, pair, assignments = world
    _, arbitrator = api_user(Role.ARBITRATOR)
    assert arbitrator.get(reverse("comparison-api:queue")).status_code == 403
    url = reverse("comparison-api:judgment", args=[assignments[0].public_id])
    assert arbitrator.post(url, content("A"), format="json").status_code == 403
    stranger = api_as(who["annotators"][1])
    for name in ("comparison-api:pair", "comparison-api:draft"):
        assert stranger.get(reverse(name, args=[assignments[0].public_id])).status_code == 404
    assert stranger.post(url, content("A"), format="json").status_code == 404
    assert not ComparisonJudgment.objects.exists()


def test_the_draft_saves_with_an_etag_and_a_stale_one_is_refused(world, api_as):
    who, pair, assignments = world
    client = api_as(who["annotators"][0])
    url = reverse("comparison-api:draft", args=[assignments[0].public_id])
    first = client.get(url)
    assert first.status_code == 200
    assert first.json()["data"] == {}
    tag = first["ETag"]
    saved = client.put(
        url, {"selected_letter": "B", "family": "gpt"}, format="json", HTTP_IF_MATCH=tag
    )
    assert saved.status_code == 200, saved.content
    assert saved.json()["data"] == {"selected_letter": "B"}
    assert saved["ETag"] != tag
    assert ComparisonDraft.objects.get(assignment=assignments[0]).data == {"selected_letter": "B"}
    stale = client.put(url, {"selected_letter": "C"}, format="json", HTTP_IF_MATCH=tag)
    assert stale.status_code == 412
    assert ComparisonDraft.objects.get(assignment=assignments[0]).data == {"selected_letter": "B"}
    again = client.get(url)
    assert again["ETag"] == saved["ETag"]
    assert again.json()["data"] == {"selected_letter": "B"}


def test_submit_is_201_then_200_and_a_revision_adds_a_version(world, api_as):
    who, pair, assignments = world
    client = api_as(who["annotators"][0])
    url = reverse("comparison-api:judgment", args=[assignments[0].public_id])
    assert client.get(url).status_code == 404
    client.put(
        reverse("comparison-api:draft", args=[assignments[0].public_id]),
        {"selected_letter": "A"},
        format="json",
    )
    first = client.post(url, content("B"), format="json")
    assert first.status_code == 201, first.content
    assert first.json()["version"] == 1
    assert first.json()["selected_letter"] == "B"
    assert first.json()["final"] is False
    assert "selected_candidate" not in first.json()
    assert not ComparisonDraft.objects.filter(assignment=assignments[0]).exists()
    again = client.post(url, content("B"), format="json")
    assert again.status_code == 200
    assert again.json()["version"] == 1
    assert ComparisonJudgment.objects.count() == 1
    revised = client.post(url, content("C"), format="json", HTTP_IF_MATCH=again["ETag"])
    assert revised.status_code == 200
    assert revised.json()["version"] == 2
    assert (
        ComparisonJudgmentVersion.objects.filter(judgment__assignment=assignments[0]).count() == 2
    )
    stale = client.post(url, content("A"), format="json", HTTP_IF_MATCH=again["ETag"])
    assert stale.status_code == 412
    assert client.get(url).json()["selected_letter"] == "C"


def test_the_guidelines_messages_name_what_is_missing(world, api_as):
    who, pair, assignments = world
    client = api_as(who["annotators"][0])
    url = reverse("comparison-api:judgment", args=[assignments[0].public_id])
    missing = client.post(url, content("A", rating="partial"), format="json")
    assert missing.status_code == 400
    assert any(
        "partial revisions require concrete written guidance" in m for m in missing.json()["detail"]
    )
    wrong = client.post(url, content("D"), format="json")
    assert wrong.status_code == 400
    assert "selected_letter" in wrong.json()["fields"]
    assert not ComparisonJudgment.objects.exists()


def test_once_the_pair_is_routed_the_same_submit_is_200_and_another_is_409(world, api_as):
    who, pair, assignments = world
    clients = [api_as(a.annotator) for a in assignments]
    sent = []
    for client, assignment in zip(clients, assignments, strict=True):
        letter = letter_for(assignment, "claude")
        url = reverse("comparison-api:judgment", args=[assignment.public_id])
        answer = client.post(url, content(letter), format="json")
        assert answer.status_code == 201
        sent.append((client, url, letter))
    pair.refresh_from_db()
    assert pair.status == ComparisonPair.Status.ADOPTED
    client, url, letter = sent[0]
    same = client.post(url, content(letter), format="json")
    assert same.status_code == 200
    assert same.json()["final"] is True
    other = "A" if letter != "A" else "B"
    changed = client.post(url, content(other), format="json")
    assert changed.status_code == 409
    assert "routed" in changed.json()["detail"]
    draft = client.put(
        reverse("comparison-api:draft", args=[assignments[0].public_id]),
        {"selected_letter": other},
        format="json",
    )
    assert draft.status_code == 400
    assert ComparisonJudgment.objects.get(assignment=assignments[0]).selected_letter == letter


def test_every_comparison_answer_is_blind(world, api_as):
    who, pair, assignments = world
    client = api_as(who["annotators"][0])
    public_id = assignments[0].public_id
    client.put(
        reverse("comparison-api:draft", args=[public_id]), {"rating": "as_is"}, format="json"
    )
    judge(assignments[0], family="gemini")
    for a in assignments[1:]:
        judge(a, family="claude", rating="partial", guidance="Trim the gemini-like detail.")
    candidate_ids = {str(c.pk) for c in pair.candidates.all()}
    for name, args in [
        ("comparison-api:queue", []),
        ("comparison-api:pair", [public_id]),
        ("comparison-api:draft", [public_id]),
        ("comparison-api:judgment", [public_id]),
    ]:
        answer = client.get(reverse(name, args=args))
        assert answer.status_code == 200, name
        body = answer.content.decode()
        no_secret(body)
        assert "Trim the" not in body, "another annotator's judgment"
        assert "candidate_id" not in body and "selected_candidate" not in body
        for key in ("id", "pk"):
            for cid in candidate_ids:
                assert f'"{key}":{cid}' not in body.replace(" ", "")
