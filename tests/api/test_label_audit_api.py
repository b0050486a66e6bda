"""The reference-label audit over the API with tokens (issue #23): the admin creates an
audit with the create page's form and service; experts save drafts and submit blind
(their own selection only, never the key or another expert's); the audit's adjudicator
decides; the audit's detail, items and outcomes are the adjudicator's and admins'."""

import json

import pytest
from django.urls import reverse

from audit.reference_labels import services
from audit.reference_labels import stored_reports as label_reports
from audit.reference_labels.models import (
    LabelAdjudication,
    LabelAudit,
    LabelAuditItem,
    LabelSelection,
)
from tests.factories import UserFactory
from tests.reference_labels.conftest import make_team, small_final_set
from tests.stored_reports import computed

from .conftest import token_client

pytestmark = pytest.mark.django_db

# What an expert's answers never name (App. D.4 blinding): the key and its provenance,
# the comparison and outcome, other experts' selections, the adjudication.
FORBIDDEN_TO_EXPERTS = {
    "is_correct",
    "correct_answer",
    "is_key",
    "key_at_audit",
    "experts_on_key",
    "n_on_key",
    "outcome",
    "status",
    "source_character",
    "source_reference",
    "selections",
    "adjudication",
    "chosen_by",
    "judge_family",
    "judge_model",
}


def keys_of(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def assert_blind(response, forbidden=None):
    found = keys_of(response.json()) & (forbidden or FORBIDDEN_TO_EXPERTS)
    assert not found, f"{response.request['PATH_INFO']} shows {found}"


@pytest.fixture
def team(db):
    return make_team()


@pytest.fixture
def clients(team):
    return {
        "experts": [token_client(u) for u in team["experts"]],
        "adjudicator": token_client(team["adjudicator"]),
        "admin": token_client(team["admin"]),
    }


@pytest.fixture
def audit(team):
    small_final_set(characters=1, stages=("school_age",), per_stratum=3)
    return services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=2,
        seed=11,
    )


def rows(audit):
    return list(
        LabelAuditItem.objects.filter(audit=audit)
        .select_related("item_version")
        .order_by("position")
    )


def submit(client, row, choice, note=""):
    return client.post(
        reverse("audit-api:labels-api:selection", args=[row.pk]),
        {"choice": choice, "note": note},
        format="json",
    )


def other(key):
    return "A" if key != "A" else "B"


# --- Creating an audit --------------------------------------------------------------------


def test_the_admin_creates_an_audit_with_the_pages_checks(team, clients):
    small_final_set(characters=1, stages=("school_age",), per_stratum=3)
    url = reverse("audit-api:labels-api:audit-list")
    body = {
        "experts": [u.pk for u in team["experts"]],
        "adjudicator": team["adjudicator"].pk,
        "items_per_stratum": 2,
        "seed": 11,
        "note": "API audit",
    }
    refused = clients["admin"].post(url, body | {"experts": body["experts"][:2]}, format="json")
    assert refused.status_code == 400
    assert "Choose exactly 3 different audit experts" in refused.json()["detail"][0]
    bad = clients["admin"].post(url, body | {"items_per_stratum": 0}, format="json")
    assert bad.status_code == 400 and "items_per_stratum" in bad.json()["fields"]
    stranger = UserFactory(username="not-an-adjudicator")
    bad = clients["admin"].post(url, body | {"adjudicator": stranger.pk}, format="json")
    assert bad.status_code == 400 and "adjudicator" in bad.json()["fields"]
    assert clients["experts"][0].post(url, body, format="json").status_code == 403
    assert clients["adjudicator"].post(url, body, format="json").status_code == 403
    assert LabelAudit.objects.count() == 0
    created = clients["admin"].post(url, body, format="json")
    assert created.status_code == 201, created.content
    audit = LabelAudit.objects.get()
    data = created.json()
    assert data["id"] == audit.pk and data["seed"] == 11 and data["total"] == 2
    assert [e["username"] for e in data["experts"]] == [
        "lab-expert-1",
        "lab-expert-2",
        "lab-expert-3",
    ]
    assert data["reproduced"] is True and data["note"] == "API audit"
    listed = clients["experts"][0].get(url, {"status": "selecting"}).json()
    assert [a["id"] for a in listed["results"]] == [audit.pk]


# --- Expert drafts and selections ---------------------------------------------------------


def test_an_expert_drafts_then_submits_blind(audit, clients, team):
    first = rows(audit)[0]
    client = clients["experts"][0]
    url = reverse("audit-api:labels-api:expert-item", args=[first.pk])
    read = client.get(url)
    assert read.status_code == 200 and read.json()["my_choice"] == ""
    assert_blind(read)
    draft_url = reverse("audit-api:labels-api:draft", args=[first.pk])
    saved = client.put(
        draft_url, {"choice": "c", "note": "thinking"}, format="json", HTTP_IF_MATCH=read["ETag"]
    )
    assert saved.status_code == 200 and saved.json()["my_choice"] == "C"
    assert saved.json()["draft_saved_at"] is not None and saved["ETag"] != read["ETag"]
    stale = client.put(draft_url, {"choice": "D"}, format="json", HTTP_IF_MATCH=read["ETag"])
    assert stale.status_code == 412
    bad = client.put(draft_url, {"choice": "E"}, format="json")
    assert bad.status_code == 400 and "'E' is not an option" in bad.json()["detail"][0]
    queue = client.get(reverse("audit-api:labels-api:expert-queue", args=[audit.pk]))
    assert [r["state"] for r in queue.json()["results"]] == ["draft", "todo"]
    assert (
        client.get(
            reverse("audit-api:labels-api:expert-queue", args=[audit.pk]), {"state": "todo"}
        ).json()["count"]
        == 1
    )
    assert_blind(queue)

    empty = submit(client, first, "")
    assert empty.status_code == 400
    assert empty.json()["detail"] == ["Select one of the options A, B, C or D."]
    done = submit(client, first, "C", "fits")
    assert done.status_code == 201 and done.json()["submitted"] is True
    assert_blind(done)
    assert submit(client, first, "C", "fits").status_code == 200
    changed = submit(client, first, "D")
    assert changed.status_code == 409
    assert "You submitted option C for this item; a selection is final." in changed.json()["detail"]
    after = client.put(draft_url, {"choice": "D"}, format="json")
    assert after.status_code == 400
    assert LabelSelection.objects.get(audit_item=first).choice == "C"


def test_experts_see_neither_the_key_nor_each_other(audit, clients, team):
    first = rows(audit)[0]
    key = first.item_version.correct_answer
    for n, client in enumerate(clients["experts"]):
        assert (
            submit(client, first, key if n else other(key), f"secret note {n}").status_code == 201
        )
    first.refresh_from_db()
    assert first.status == LabelAuditItem.Status.ADJUDICATING
    for n, client in enumerate(clients["experts"]):
        for url in (
            reverse("audit-api:labels-api:expert-item", args=[first.pk]),
            reverse("audit-api:labels-api:expert-queue", args=[audit.pk]),
            reverse("audit-api:labels-api:audit-list"),
        ):
            answer = client.get(url)
            assert answer.status_code == 200
            # The audit list names each audit's own status (selecting, complete).
            audits = url == reverse("audit-api:labels-api:audit-list")
            assert_blind(answer, FORBIDDEN_TO_EXPERTS - {"status"} if audits else None)
            text = answer.content.decode()
            assert not [m for m in range(3) if m != n and f"secret note {m}" in text]
        for name, args in (
            ("audit", [audit.pk]),
            ("audit-items", [audit.pk]),
            ("outcomes", [audit.pk]),
            ("adjudication", [first.pk]),
        ):
            answer = client.get(reverse(f"audit-api:labels-api:{name}", args=args))
            assert answer.status_code == 403, name
    # Another audit's expert: 404 on this audit's items.
    outsider = token_client(make_team("other")["experts"][0])
    assert (
        outsider.get(reverse("audit-api:labels-api:expert-item", args=[first.pk])).status_code
        == 404
    )
    assert submit(outsider, first, key).status_code == 404
    assert (
        outsider.get(reverse("audit-api:labels-api:expert-queue", args=[audit.pk])).status_code
        == 404
    )


# --- Adjudication -------------------------------------------------------------------------


def test_the_adjudicator_decides_over_the_api(audit, clients, team):
    first, second = rows(audit)
    key = first.item_version.correct_answer
    url = reverse("audit-api:labels-api:adjudication", args=[first.pk])
    assert clients["adjudicator"].get(url).status_code == 404  # selections not in yet
    for client in clients["experts"]:
        submit(client, first, other(key))
    page = clients["adjudicator"].get(url)
    assert page.status_code == 200
    body = page.json()
    assert body["experts_on_key"] == 0 and body["status"] == "adjudicating"
    assert [s["username"] for s in body["selections"]] == [u.username for u in team["experts"]]
    # The admin reads it but does not decide; only the audit's adjudicator does.
    assert clients["admin"].get(url).status_code == 200
    refused = clients["admin"].post(url, {"decision": "usable_as_is"}, format="json")
    assert refused.status_code == 403
    other_adjudicator = token_client(make_team("other")["adjudicator"])
    assert other_adjudicator.get(url).status_code == 403
    # The page's messages, then a stale If-Match.
    no_note = clients["adjudicator"].post(
        url, {"decision": "key_change", "new_key": other(key)}, format="json"
    )
    assert no_note.status_code == 400
    assert "Say why in the note" in no_note.json()["detail"][0]
    bad = clients["adjudicator"].post(url, {"decision": "veto"}, format="json")
    assert bad.status_code == 400 and "decision" in bad.json()["fields"]
    stale = clients["adjudicator"].post(
        url, {"decision": "usable_as_is"}, format="json", HTTP_IF_MATCH='"old"'
    )
    assert stale.status_code == 412
    assert LabelAdjudication.objects.count() == 0
    decided = clients["adjudicator"].post(
        url,
        {"decision": "key_change", "new_key": other(key), "note": "All three agree on it."},
        format="json",
        HTTP_IF_MATCH=page["ETag"],
    )
    assert decided.status_code == 201, decided.content
    data = decided.json()
    assert data["outcome"] == "key_changed" and data["adjudication"]["result_version"] == 2
    first.item.refresh_from_db()
    assert first.item.correct_answer == other(key) and first.item.status == "screening"
    replay = clients["adjudicator"].post(
        url, {"decision": "key_change", "new_key": other(key), "note": "again"}, format="json"
    )
    assert (
        replay.status_code == 200
        and replay.json()["adjudication"]["id"] == data["adjudication"]["id"]
    )
    conflict = clients["adjudicator"].post(
        url, {"decision": "removal", "note": "no"}, format="json"
    )
    assert conflict.status_code == 409
    assert LabelAdjudication.objects.count() == 1

    items = (
        clients["adjudicator"]
        .get(
            reverse("audit-api:labels-api:audit-items", args=[audit.pk]), {"ordering": "-position"}
        )
        .json()
    )
    assert [(r["id"], r["status"], r["outcome"]) for r in items["results"]] == [
        (second.pk, "selecting", ""),
        (first.pk, "resolved", "key_changed"),
    ]
    detail = clients["adjudicator"].get(reverse("audit-api:labels-api:audit", args=[audit.pk]))
    assert detail.json()["counts"]["resolved"] == 1
    computed(label_reports.KIND, str(audit.pk))
    outcomes = clients["admin"].get(reverse("audit-api:labels-api:outcomes", args=[audit.pk]))
    counts = {r["key"]: r["n"] for r in outcomes.json()["rows"]}
    assert counts["agree_0"] == 1 and counts["key_changed"] == 1
    assert json.loads(outcomes.content)["kappa_items"] == 1
