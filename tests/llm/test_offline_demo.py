"""The offline demo provider: deterministic, schema-valid, labelled, and offline."""

import socket

import pytest

from llm import ProviderConfig, SchemaValidator, make_client
from llm.demo import DEMO_LABEL, OfflineDemoClient

from .helpers import CANDIDATE_SCHEMA, SCREENING_SCHEMA, SYSTEM, USER, call

DEMO = ProviderConfig(kind="offline_demo", model="offline-demo")


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the offline demo provider opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_only_the_offline_demo_kind_selects_it():
    assert isinstance(make_client(DEMO), OfflineDemoClient)
    other = ProviderConfig(kind="anthropic", model="m")
    assert not isinstance(make_client(other), OfflineDemoClient)
    with pytest.raises(ValueError):
        OfflineDemoClient(other)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_demo_output_is_deterministic_valid_and_labelled(no_network, mode):
    client = make_client(DEMO)
    first = call(client, mode)
    again = call(client, mode)
    other = call(client, mode, user=USER + " another scenario")

    assert first.ok, first.failure_reason
    assert first.parsed == again.parsed
    assert first.parsed != other.parsed
    SchemaValidator(CANDIDATE_SCHEMA).validate(first.parsed)
    assert first.parsed["final_decision"].startswith(DEMO_LABEL)
    assert first.parsed["inner_consciousness"]["summary"].startswith(DEMO_LABEL)
    assert first.demo is True and first.provider == "offline_demo"
    assert first.request["offline_demo"] is True
    assert (first.tokens_in, first.tokens_out) == (0, 0)


def test_demo_screening_picks_memory_ids_that_were_offered(no_network):
    user = "Candidate memories:\n- MEM_04_0012 [age 9] ...\n- MEM_04_0107 [age 31] ..."
    result = make_client(DEMO).complete_json(system=SYSTEM, user=user, schema=SCREENING_SCHEMA)
    assert result.ok, result.failure_reason
    assert result.parsed
    assert {m["memory_id"] for m in result.parsed} <= {"MEM_04_0012", "MEM_04_0107"}


def test_demo_reports_what_it_cannot_satisfy(no_network):
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^Z{3}$"}},
        "required": ["id"],
    }
    result = make_client(DEMO).complete_json(system=SYSTEM, user="nothing here", schema=schema)
    assert not result.ok
    assert result.error_kind == "schema_invalid"
    assert DEMO_LABEL in result.error_message


def test_demo_covers_common_schema_features(no_network):
    schema = {
        "type": "object",
        "$defs": {"tone": {"enum": ["calm", "tense"]}},
        "properties": {
            "tone": {"$ref": "#/$defs/tone"},
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
            "weight": {"type": "number"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "maybe": {"type": ["string", "null"]},
            "kind": {"const": "candidate"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
        "required": ["tone", "score", "weight", "flag", "tags", "maybe", "kind", "either"],
        "additionalProperties": False,
    }
    result = make_client(DEMO).complete_json(system=SYSTEM, user=USER, schema=schema)
    assert result.ok, result.failure_reason
    assert result.parsed["kind"] == "candidate" and len(result.parsed["tags"]) == 2
