"""Schemathesis against the OpenAPI schema (/api/schema/): no request the schema allows,
and none it does not, gets a 500 — as each role, with the schema that role is served
(filtered to what its roles may call), and as a baseline participant (who is served no
schema) with the admin's full schema, every call of which it must be refused.

Real HTTP to the live server, token authentication, a bounded number of generated
examples per operation (``EXAMPLES``), and the property checked is the one a user
relies on: the API answers a bad request with a 4xx that says why, never a crash.
"""

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token

from annotation.corpus_import.importing import import_files
from core.roles import Role
from tests.comparison.helpers import assign, make_pair, people
from tests.corpus_import import as_json, small_characters
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = 12  # per operation and generation mode, for the admin (who may call everything)
ROLE_EXAMPLES = 5  # for the other roles: their schemas are smaller, refusals are cheap


def api_schema(client) -> dict:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def corpus(transactional_db, release_dir):
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)
    import_files(
        [
            ("scenarios.json", (release_dir / "scenarios.json").read_bytes()),
            ("characters.json", as_json(small_characters())),
        ]
    )
    cast = people()
    from annotation.corpus.models import Scenario

    pair = make_pair(key="CHAR_41", scenario=Scenario.objects.order_by("scenario_id").first())
    assign(pair, cast["annotators"], cast["admin"])
    return cast


def real_path_parameters(cast) -> dict:
    """Ids of stored objects, so generated bodies also meet real records."""
    from annotation.comparison.models import PairAssignment
    from annotation.corpus.models import Memory, Scenario

    return {
        "key": "CHAR_01",
        "scenario_id": Scenario.objects.order_by("scenario_id").first().scenario_id,
        "memory_id": Memory.objects.order_by("pk").first().memory_id,
        "assignment": str(
            PairAssignment.objects.filter(annotator=cast["annotators"][0]).get().public_id
        ),
    }


#: The cases drawn for an operation, by what its strategy depends on. The draws are
#: derandomized, so every role whose schema holds the same operation would draw the same
#: cases again: each operation is drawn once per process, ``EXAMPLES`` cases, and each
#: role sends the first of them it is given (``ROLE_EXAMPLES``, or all for the admin).
_DRAWN: dict[tuple, list] = {}


def drawn_cases(strategy, key: tuple, examples: int) -> list:
    """The first ``examples`` of the cases Hypothesis draws from ``strategy``, drawn first
    and sent after: nothing a response says changes what is drawn (no shrinking, no
    targets)."""
    if key not in _DRAWN:
        cases = []

        @given(case=strategy)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def draw(case):
            cases.append(case)

        try:
            draw()
        except Unsatisfiable:
            pass  # nothing in this operation can be made invalid (no parameters)
        _DRAWN[key] = cases
    return _DRAWN[key][:examples]


def referenced(node, components: dict, seen: dict) -> dict:
    """The components ``node`` refers to, directly or through other components."""
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/components/") and ref not in seen:
            kind, name = ref.split("/")[2:4]
            seen[ref] = components.get(kind, {}).get(name)
            referenced(seen[ref], components, seen)
        for value in node.values():
            referenced(value, components, seen)
    elif isinstance(node, list):
        for value in node:
            referenced(value, components, seen)
    return seen


def fuzz(
    schema_doc: dict, base_url: str, token: str, known: dict, examples: int = EXAMPLES
) -> tuple[list[str], Counter, set]:
    import schemathesis
    from schemathesis import GenerationMode

    schema = schemathesis.openapi.from_dict(schema_doc)
    components = schema_doc.get("components", {})
    headers = {"Authorization": f"Token {token}"}
    crashes, statuses, served = [], Counter(), set()
    operations = [result.ok() for result in schema.get_all_operations()]

    for operation in operations:
        if operation.method.upper() == "DELETE" and operation.path == "/api/auth/token/":
            continue  # revoking the token would refuse every later call (tests/api/test_tokens)
        # An operation's strategy depends on its definition and the components it uses.
        raw = schema_doc["paths"][operation.path][operation.method.lower()]
        definition = json.dumps([raw, referenced(raw, components, {})], sort_keys=True)
        names = {p.name for p in operation.path_parameters}
        strategies = [
            ("positive", operation.as_strategy(GenerationMode.POSITIVE)),
            ("negative", operation.as_strategy(GenerationMode.NEGATIVE)),
        ]
        if names and names <= known.keys():
            values = {n: known[n] for n in names}
            strategies.append(
                (
                    f"positive {sorted(values.items())}",
                    operation.as_strategy(GenerationMode.POSITIVE, path_parameters=values),
                )
            )
        for kind, strategy in strategies:
            key = (operation.method, operation.path, definition, kind)
            for case in drawn_cases(strategy, key, examples):
                response = case.call(base_url=base_url, headers=headers, timeout=60)
                statuses[response.status_code // 100 * 100] += 1
                if response.status_code < 300:
                    served.add(f"{case.method} {case.path}")
                if response.status_code >= 500:
                    crashes.append(
                        f"{case.method} {response.request.url} -> {response.status_code}: "
                        f"{response.text[:300]}"
                    )
    return crashes, statuses, served


@pytest.mark.parametrize("role", list(Role))
def test_no_generated_request_crashes_the_api(corpus, live_server, client, role):
    if role == Role.ADMIN:
        user = corpus["admin"]
    elif role == Role.PRIMARY_ANNOTATOR:
        user = corpus["annotators"][0]
    else:
        user = UserFactory(username=f"fuzz-{role.value}", roles=[role])
    token = Token.objects.create(user=user).key
    # Participants and observers reach no API but their own identity: they are served no
    # schema, so they try every operation of the admin's.
    participant = role in (Role.BASELINE_PARTICIPANT, Role.OBSERVER)
    # Each role fuzzes the schema it is served.
    client.force_login(
        UserFactory(username="schema-reader", roles=[Role.ADMIN]) if participant else user
    )
    schema_doc = api_schema(client)
    assert len(schema_doc["paths"]) > (25 if role == Role.ADMIN else 1)
    crashes, statuses, served = fuzz(
        schema_doc,
        live_server.url,
        token,
        real_path_parameters(corpus),
        EXAMPLES if role == Role.ADMIN else ROLE_EXAMPLES,
    )
    assert not crashes, "\n".join(crashes[:20])
    if participant:
        # Everything refused but the participant's own identity.
        assert served <= {"GET /api/me/"}, served
        assert statuses[400] > 0, statuses
    else:
        # The requests reached the views: some were served, some refused as invalid.
        assert statuses[200] > 0 and statuses[400] > 0, statuses
