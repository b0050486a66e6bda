"""Blinding of the comparison (seed 000 App. D.2: "Candidate order was randomized, and
model-family identities were hidden during annotation"): an annotator walks every page,
fragment and API response of the URLconf, with their own assignment in every state
(untouched, drafted, submitted, routed, adjudicated), and finds no family or model name
of the candidates. The control finds them where the admin may see them."""

import pytest

from adjudication.arbitration import services as arbitration
from annotation.comparison import services as comparison_services
from core.roles import Role
from tests.blinding import control_scan, module_data, scan_responses
from tests.factories import UserFactory
from tests.web.conftest import SECRET_MODEL_NAMES, build_secret_corpus
from tests.web.test_blinding import every_url
from tests.web.test_generation_blinding import FAMILY_WORD, HEADER_VARIANTS

from .helpers import assign, ensure_groups, judge, make_pair

pytestmark = pytest.mark.django_db

QUERY_VARIANTS = ["", "?format=json", "?edit=1"]


def exposures(body: str) -> list[str]:
    found = [f"model name {name}" for name in SECRET_MODEL_NAMES.values() if name in body]
    found += sorted({f"family {m.group(0)!r}" for m in FAMILY_WORD.finditer(body)})
    return found


def scan(client, urls, fetched=None):
    """{(url, headers): (view name, status, what the body exposes)}"""
    return scan_responses(
        client,
        urls,
        exposures,
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
        fetched=fetched,
    )


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Built once for the module (module_data): the walks below read it, none writes."""
    with module_data(django_db_blocker):
        yield build_world()


@pytest.fixture(scope="module")
def annotator_fetched():
    """The answers the first annotator's walks got, shared by the state tests: a URL that
    names no assignment or pair answers the same in each, so it is fetched once."""
    return {}


def build_world():
    ensure_groups()
    secret_corpus = build_secret_corpus()
    annotators = [
        UserFactory(username=f"blind-{i}", roles=[Role.PRIMARY_ANNOTATOR]) for i in (1, 2, 3)
    ]
    arbitrator = UserFactory(username="blind-arbitrator", roles=[Role.ARBITRATOR])
    admin = UserFactory(
        username="blind-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True
    )
    pairs = [make_pair(key=f"CHAR_3{i}") for i in range(4)]
    from annotation.generation.models import Candidate

    for c in Candidate.objects.all():
        c.model_name = SECRET_MODEL_NAMES[c.family]
        c.save(update_fields=["model_name"])
    assigned = [list(assign(p, annotators, admin).values()) for p in pairs]
    # pair 0 untouched but drafted by the first annotator; pair 1 submitted by the first;
    # pair 2 escalated and adjudicated; pair 3 adopted unanimously.
    comparison_services.comparison_draft_save(
        public_id=assigned[0][0].public_id, annotator=annotators[0], data={"selected_letter": "B"}
    )
    judge(assigned[1][0], family="gpt", rating="partial", guidance="Trim it.")
    for a, family in zip(assigned[2], ("claude", "gpt", "gemini"), strict=True):
        judge(a, family=family)
    arbitration.arbitration_resolve(
        pair_id=pairs[2].pk,
        arbitrator=arbitrator,
        kind="edited",
        candidate_id=pairs[2].candidates.get(family="gemini").pk,
        fields={"summary": "Edited.", "final_decision": "I stay."},
    )
    for a in assigned[3]:
        judge(a, family="claude")
    return {
        "corpus": secret_corpus,
        "annotators": annotators,
        "arbitrator": arbitrator,
        "admin": admin,
        "pairs": pairs,
        "assigned": assigned,
    }


@pytest.mark.parametrize(
    "state", [0, 1, 2, 3], ids=["drafted", "submitted", "adjudicated", "adopted"]
)
def test_an_annotator_reaches_no_family_or_model_name_anywhere(
    client, world, annotator_fetched, state
):
    annotator = world["annotators"][0]
    client.force_login(annotator)
    corpus = {
        **world["corpus"],
        "assignment": world["assigned"][state][0],
        "pair": world["pairs"][state],
    }
    reached = set()
    world["pairs"][state].refresh_from_db()
    routed = not world["pairs"][state].is_open
    for (requested, headers), (name, status, found) in scan(
        client, every_url(corpus, annotator), annotator_fetched
    ).items():
        if name == "blinding:guess":  # the family question: closed until final, then named
            assert status == (200 if routed else 404), requested
            continue
        assert not found, f"{requested} {headers} ({status}) exposes {found}"
        if status == 200:
            reached.add(name)
    assert {
        "comparison:queue",
        "comparison:pair",
        "comparison-api:queue",
        "comparison-api:pair",
        "comparison-api:draft",
    } <= reached
    # The judgment endpoint answers once the annotator has submitted (issue #23).
    assert ("comparison-api:judgment" in reached) == (state > 0)


def test_the_scan_finds_families_where_the_admin_may_see_them(client, world):
    client.force_login(world["admin"])
    corpus = {**world["corpus"], "assignment": world["assigned"][2][0], "pair": world["pairs"][2]}
    # The same requests as scan(); the walk stops once both assertions below hold.
    seen = control_scan(
        client,
        every_url(corpus, world["admin"]),
        lambda body, _: exposures(body),
        lambda seen: "family 'Gemini'" in seen and any(s.startswith("model name") for s in seen),
        query_variants=QUERY_VARIANTS,
        header_variants=HEADER_VARIANTS,
    )
    assert {"family 'Gemini'"} <= seen
    assert any(s.startswith("model name") for s in seen)
