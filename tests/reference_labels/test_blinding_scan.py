"""Blinding of the reference-label audit (App. D.4: "The existing answer key was hidden
from them"; DESIGN.md: an audit expert never sees the key). Each of the three experts
walks every page, fragment and API response of the URLconf in each state of the audit
(nothing submitted, some submitted, all three in with a disagreement and an approval,
adjudicated with a key change) and finds no key field, no option provenance, no item
status and no other expert's note. And a differential check: with the keys swapped,
every label-audit response an expert gets is byte-for-byte the same, so nothing they
can fetch is a function of the key. The controls show both checks can fail."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.mcq.models import McqItem, McqItemVersion, McqOption
from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditItem
from tests.blinding import scan_responses
from tests.web.conftest import secret_corpus  # noqa: F401
from tests.web.test_blinding import every_url

from .conftest import small_final_set

pytestmark = pytest.mark.django_db

DISTRACTOR_SOURCES = ("CHAR_71", "CHAR_72", "CHAR_73")
NOTES = {
    1: "zqx-label-note-of-expert-one",
    2: "zqx-label-note-of-expert-two",
    3: "zqx-label-note-of-expert-three",
}
# Field names and the item states' labels: none may reach an expert.
KEY_WORDS = (
    "correct_answer",
    "is_correct",
    "source_character",
    "key_at_audit",
    "n_on_key",
    "experts_on_key",
    "Approved: all three",
    "Awaiting the adjudicator",
    "Adjudicated",
    "Key at the audit",
    "adjudication-queue",
    "key_changed",
    "usable_as_is",
)
QUERY_VARIANTS = ["", "?format=json"]
HEADER_VARIANTS = [{}, {"HTTP_HX_REQUEST": "true"}]
CSRF = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": ")[^"]+')


def exposures_for(position):
    def exposures(body: str) -> list[str]:
        found = [f"field {w}" for w in KEY_WORDS if w in body]
        found += [f"source {s}" for s in DISTRACTOR_SOURCES if s in body]
        found += [f"note of expert {p}" for p, n in NOTES.items() if p != position and n in body]
        return found

    return exposures


def normalized(body: str) -> str:
    return CSRF.sub(r"\1-", body)


@pytest.fixture
def world(secret_corpus, team):  # noqa: F811
    small_final_set(characters=1, stages=("school_age",), per_stratum=4)
    audit = services.label_audit_create(
        created_by=team["admin"],
        experts=team["experts"],
        adjudicator=team["adjudicator"],
        items_per_stratum=4,
        seed=77,
    )
    rows = list(audit.items.select_related("item_version").order_by("position"))
    clients = {}
    for position, expert in enumerate(team["experts"], start=1):
        clients[position] = Client()
        clients[position].force_login(expert)
    return {"audit": audit, "rows": rows, "clients": clients, "team": team, "corpus": secret_corpus}


def label_urls(world) -> dict[str, str]:
    audit = world["audit"]
    urls = {
        reverse("audit:labels:home"): "labels:home",
        reverse("audit:labels:create"): "labels:create",
        reverse("audit:labels:audit", args=[audit.pk]): "labels:audit",
        reverse("audit:labels:expert-queue", args=[audit.pk]): "labels:expert-queue",
        reverse("audit:labels:outcomes", args=[audit.pk]): "labels:outcomes",
        reverse("audit:labels:outcomes-csv", args=[audit.pk]): "labels:outcomes-csv",
        reverse("audit-api:labels-api:audit-list"): "labels-api:audit-list",
        reverse("audit-api:labels-api:expert-queue", args=[audit.pk]): "labels-api:expert-queue",
        reverse("audit-api:labels-api:outcomes", args=[audit.pk]): "labels-api:outcomes",
        reverse("audit-api:labels-api:audit", args=[audit.pk]): "labels-api:audit",
        reverse("audit-api:labels-api:audit-items", args=[audit.pk]): "labels-api:audit-items",
        reverse("home"): "home",
        reverse("api-schema"): "api-schema",
    }
    for row in world["rows"]:
        for name in ("select", "draft", "adjudicate"):
            urls[reverse(f"audit:labels:{name}", args=[row.pk])] = f"labels:{name}"
        urls[reverse("audit-api:labels-api:expert-item", args=[row.pk])] = "labels-api:expert-item"
        for name in ("draft", "selection", "adjudication"):
            urls[reverse(f"audit-api:labels-api:{name}", args=[row.pk])] = f"labels-api:{name}"
    return urls


def scan(client, urls, exposures, queries=QUERY_VARIANTS, headers=HEADER_VARIANTS):
    return scan_responses(client, urls, exposures, query_variants=queries, header_variants=headers)


def assert_blind(world, *, whole_urlconf=False):
    urls = label_urls(world)
    for position, client in world["clients"].items():
        results = scan(client, urls, exposures_for(position))
        leaks = {k: v for k, v in results.items() if v[2]}
        assert not leaks, f"expert {position}: {leaks}"
        reached = {v[0] for v in results.values() if v[1] == 200}
        assert {"labels:select", "labels-api:expert-item", "labels:expert-queue"} <= reached
        assert not reached & {
            "labels:audit",
            "labels:outcomes",
            "labels:adjudicate",
            "labels:outcomes-csv",
            "labels-api:outcomes",
            "labels-api:audit",
            "labels-api:audit-items",
            "labels-api:adjudication",
        }
    if whole_urlconf:
        corpus = dict(world["corpus"], label_audit=world["audit"], label_item=world["rows"][0])
        for position, client in world["clients"].items():
            everything = every_url(corpus, world["team"]["experts"][position - 1])
            results = scan(client, everything, exposures_for(position), queries=[""], headers=[{}])
            leaks = {k: v for k, v in results.items() if v[2]}
            assert not leaks, f"expert {position}: {leaks}"


def submit(world, position, row, choice, draft_only=False):
    expert = world["team"]["experts"][position - 1]
    fn = services.label_selection_draft_save if draft_only else services.label_selection_submit
    fn(audit_item_id=row.pk, expert=expert, choice=choice, note=NOTES[position])


def other(key, n=1):
    return [x for x in "ABCD" if x != key][n - 1]


def play_to_comparison(world):
    """Item 1: two on the key, one not (→ adjudicator); item 2: all on the key
    (→ approved); item 3: only expert 1 has submitted, expert 2 drafted."""
    rows = world["rows"]
    k1, k2, k3 = (r.item_version.correct_answer for r in rows[:3])
    for position, choice in zip((1, 2, 3), (k1, other(k1), k1), strict=True):
        submit(world, position, rows[0], choice)
    for position in (1, 2, 3):
        submit(world, position, rows[1], k2)
    submit(world, 1, rows[2], other(k3))
    submit(world, 2, rows[2], k3, draft_only=True)


def test_experts_never_receive_the_key_in_any_state(world):
    assert_blind(world)  # nothing submitted

    rows = world["rows"]
    submit(world, 1, rows[0], rows[0].item_version.correct_answer)
    submit(world, 2, rows[0], "A", draft_only=True)
    assert_blind(world)  # one submitted, one drafted

    submit(world, 2, rows[0], other(rows[0].item_version.correct_answer))
    submit(world, 3, rows[0], rows[0].item_version.correct_answer)
    k2 = rows[1].item_version.correct_answer
    for position in (1, 2, 3):
        submit(world, position, rows[1], k2)
    assert LabelAuditItem.objects.get(pk=rows[0].pk).status == "adjudicating"
    assert LabelAuditItem.objects.get(pk=rows[1].pk).status == "approved"
    assert_blind(world, whole_urlconf=True)  # all three in: compared

    services.label_item_adjudicate(
        audit_item_id=rows[0].pk,
        adjudicator=world["team"]["adjudicator"],
        decision="key_change",
        new_key=other(rows[0].item_version.correct_answer),
        note="zqx-adjudicator-reason",
    )
    assert_blind(world, whole_urlconf=True)  # adjudicated, new item version


def swap_keys(world, rows):
    """Make another option the key of ``rows``' items everywhere it is stored, then
    compare the selections again, as if the item had been keyed that way all along."""
    for row in rows:
        row.refresh_from_db()
        version = row.item_version
        old = version.correct_answer
        new = other(old)
        target = next(o["source_character"] for o in version.options if o["label"] == old)
        displaced = next(o["source_character"] for o in version.options if o["label"] == new)
        for o in version.options:
            o["is_correct"] = o["label"] == new
            if o["label"] == new:
                o["source_character"] = target
            elif o["label"] == old:
                o["source_character"] = displaced
        McqItemVersion.objects.filter(pk=version.pk).update(
            correct_answer=new, options=version.options
        )
        McqItem.objects.filter(pk=row.item_id).update(correct_answer=new)
        for o in version.options:
            McqOption.objects.filter(item_id=row.item_id, label=o["label"]).update(
                is_correct=o["is_correct"], source_character=o["source_character"]
            )
        if row.n_on_key is not None:
            LabelAuditItem.objects.filter(pk=row.pk).update(status="selecting")
            fresh = LabelAuditItem.objects.select_related("item_version", "audit").get(pk=row.pk)
            services.label_item_compare(audit_item=fresh)


def bodies(client, urls):
    return {
        key: normalized(body) for key, (_, _, body) in scan(client, urls, lambda body: body).items()
    }


def test_nothing_an_expert_fetches_depends_on_the_key(world):
    play_to_comparison(world)
    urls = label_urls(world)
    before = {p: bodies(c, urls) for p, c in world["clients"].items()}
    adjudicator = Client()
    adjudicator.force_login(world["team"]["adjudicator"])
    control_before = bodies(adjudicator, urls)

    swap_keys(world, world["rows"])
    statuses = dict(LabelAuditItem.objects.values_list("pk", "status"))
    assert statuses[world["rows"][1].pk] == "adjudicating"  # it was approved before

    for position, client in world["clients"].items():
        after = bodies(client, urls)
        changed = [k for k in before[position] if before[position][k] != after[k]]
        assert not changed, f"expert {position}: responses depend on the key: {changed}"
    # The control: the adjudicator's pages do show the key, so the comparison can fail.
    control_after = bodies(adjudicator, urls)
    assert any(control_before[k] != control_after[k] for k in control_before)


def test_the_scan_finds_what_the_adjudicator_may_see(world):
    play_to_comparison(world)
    adjudicator = Client()
    adjudicator.force_login(world["team"]["adjudicator"])
    results = scan(adjudicator, label_urls(world), exposures_for(0))
    seen = {e for _, status, found in results.values() if status == 200 for e in found}
    assert {f"note of expert {p}" for p in NOTES} <= seen
    assert "field Awaiting the adjudicator" in seen or "field adjudication-queue" in seen
