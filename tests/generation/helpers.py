"""The scripted fake provider and a small corpus for the generation tests."""

import re
import threading

from django.utils import timezone

from llm import ProviderConfig
from llm.testing.fake_server import FakeProviderServer
from tests.factories import CharacterFactory, MemoryFactory, ProfileVersionFactory, ScenarioFactory
from tests.pipeline_ready import memories_audited, scenario_reviewed

FAMILY_KINDS = {"claude": "anthropic", "gpt": "openai", "gemini": "gemini"}
ROUTE_OF_FAMILY = FAMILY_KINDS
URL_KINDS = ("anthropic", "openai", "gemini", "openai_compatible", "embeddings")
PASS = object()  # in a faults list: answer this request normally
OFFERED_ID = re.compile(r"MEM_CHAR_\d{2}_\d{4,}")

VALID_RESPONSE = {
    "character_id": "CHAR_01",
    "scenario_id": "SCN_SCHOOL_AGE_1",
    "inner_consciousness": {
        "summary": "I keep looking at the plants and thinking about the promise I made.",
        "emotional_tone": "torn, anxious; moderate",
        "core_reasoning": "I keep promises because breaking them makes me feel unsafe.",
    },
    "final_decision": "I stay home to water the plants. I call my teacher to tell her.",
}


def stage_of(req) -> str:
    schema = req.schema() or {}
    if schema.get("type") == "array":
        return "screening"
    if "activated_memories" in schema.get("properties", {}):
        return "reranking"
    return "response"


def offered_ids(req) -> list[str]:
    turns = req.turns()
    first_user = next(text for role, text in turns if role == "user")
    return list(dict.fromkeys(OFFERED_ID.findall(first_user)))


class ScriptedProvider:
    """A responder answering by stage: screening picks ``screen(offered)`` of the ids it
    was offered, re-ranking the first ``rerank_count`` (default: the schema's maximum),
    the response ``VALID_RESPONSE``. ``faults[stage]`` is a list of answers served first
    (a Fault, a Reply, or any JSON value) for that stage, one per request."""

    def __init__(self):
        self.screen = lambda offered: offered
        self.rerank_count = None
        self.response = VALID_RESPONSE
        self.faults: dict[str, list] = {"screening": [], "reranking": [], "response": []}
        self.always: dict[str, object] = {}
        self._lock = threading.Lock()

    def __call__(self, req):
        stage = stage_of(req)
        with self._lock:
            if stage in self.always:
                return self.always[stage]
            injected = self.faults[stage].pop(0) if self.faults[stage] else PASS
        if injected is not PASS:
            return injected
        offered = offered_ids(req)
        if stage == "screening":
            picked = self.screen(offered)
            if not isinstance(picked, list):  # a Fault or Reply for this request
                return picked
            return [{"memory_id": i, "reason": "structural similarity"} for i in picked]
        if stage == "reranking":
            limit = req.schema()["properties"]["activated_memories"]["maxItems"]
            count = self.rerank_count if self.rerank_count is not None else limit
            return {
                "activated_memories": [
                    {"memory_id": i, "type": "BS", "reason": "drives the choice"}
                    for i in offered[:count]
                ]
            }
        return self.response


def family_settings(server, *, timeout=5.0, max_retries=2, families=("claude", "gpt", "gemini")):
    out = {}
    for family in families:
        kind = FAMILY_KINDS[family]
        response = ProviderConfig(
            kind=kind,
            model=f"fake-{family}-response",
            base_url=server.base_url(kind),
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=0.01,
            backoff_cap=0.05,
            retry_after_max=5.0,
            max_tokens=512,
        )
        out[family] = {
            "response": response,
            "activation": response.with_options(model=f"fake-{family}-activation"),
            "price_in": "3",
            "price_out": "15",
            "activation_price_in": "1",
            "activation_price_out": "5",
        }
    return out


def worker_env(server, *, timeout=5.0, max_retries=2) -> dict[str, str]:
    """The same providers as environment variables, for a worker process."""
    env = {}
    for family, kind in FAMILY_KINDS.items():
        prefix = f"HEARTBENCH_{family.upper()}"
        env.update(
            {
                f"{prefix}_KIND": kind,
                f"{prefix}_BASE_URL": server.base_url(kind),
                f"{prefix}_MODEL": f"fake-{family}-response",
                f"{prefix}_ACTIVATION_MODEL": f"fake-{family}-activation",
                f"{prefix}_TIMEOUT": str(timeout),
                f"{prefix}_MAX_RETRIES": str(max_retries),
                f"{prefix}_BACKOFF_BASE": "0.01",
                f"{prefix}_BACKOFF_CAP": "0.05",
            }
        )
    return env


def frozen_character(key="CHAR_01", *, ages=(), frozen=True, audited=True):
    """A character with a profile (frozen unless told) and memories at ``ages``, whose
    memory audit is finalized unless ``audited=False`` (the generation gates)."""
    character = CharacterFactory(key=key)
    profile = ProfileVersionFactory(character=character, number=1)
    if frozen:
        profile.frozen_at = timezone.now()
        profile.save()
    for seq, age in enumerate(ages, start=1):
        MemoryFactory(
            character=character,
            sequence=seq,
            event_age=age,
            memory_id=f"MEM_{key}_N_HIGH_{seq:04d}",
            anonymized_id=f"MEM_{key}_{seq:04d}",
        )
    if audited:
        memories_audited(character)
    return character


def scenario(scenario_id="SCN_SCHOOL_AGE_1", age=10, *, reviewed=True):
    """A scenario whose review is complete unless ``reviewed=False``."""
    row = ScenarioFactory(scenario_id=scenario_id, age=age)
    if reviewed:
        scenario_reviewed(row)
    return row


class ClosedProvider:
    """A fake provider whose port is closed until ``open()``: the addresses
    (``base_url``, for ``family_settings``, ``worker_env`` and the like) are fixed
    first, so a worker can be pointed at a provider that is not there yet and finds it
    on the same port once it is back. Use as a context manager (stops it at the end)."""

    def __init__(self, responder):
        self.server = FakeProviderServer(responder=responder).start()
        self.port = self.server.port
        self._urls = {kind: self.server.base_url(kind) for kind in URL_KINDS}
        self.server.stop()  # nothing listens on the port now: connections are refused

    def base_url(self, kind: str) -> str:
        return self._urls[kind]

    def open(self) -> FakeProviderServer:
        self.server.requested_port = self.port
        return self.server.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.stop()
