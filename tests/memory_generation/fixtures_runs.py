"""Fixtures of the memory generation run tests: a fake provider that writes memories for
whatever slot it is asked about, frozen characters with plans, and the provider
settings (the environment, for this process and for worker processes)."""

import itertools
import re
import threading

import pytest
from django.utils import timezone

from annotation.memory_generation import quota
from annotation.memory_generation.models import MemoryPlan, QuotaWeights
from core.providers import clear_client_cache
from llm.testing.fake_server import FakeProviderServer
from tests.factories import CharacterFactory, ProfileVersionFactory

TARGET_AGE = re.compile(r"^Target age: (\d+)$", re.MULTILINE)
BIN = re.compile(r"^Life-stage bin: (.+)$", re.MULTILINE)
TIER = re.compile(r"^Intensity tier: ([ABCD])$", re.MULTILINE)
DOMAIN = re.compile(r"^Domain: (.+)$", re.MULTILINE)
PASS = object()  # in a faults list: answer this request normally
TIER_INTENSITY = {"A": 0.9, "B": 0.7, "C": 0.45, "D": 0.2}


def slot_of(req) -> dict:
    """The slot a request asks about, read from the user prompt's fixed lines."""
    first_user = next(text for role, text in req.turns() if role == "user")
    return {
        "age": int(TARGET_AGE.search(first_user).group(1)),
        "bin": BIN.search(first_user).group(1),
        "tier": TIER.search(first_user).group(1),
        "domain": DOMAIN.search(first_user).group(1),
        "user": first_user,
    }


def memory_for(slot: dict, n: int) -> dict:
    age = slot["age"]
    return {
        "id": f"slot-{n}",
        "timeline": f"{slot['bin'].lower()} ({age} years old)",
        "context": f"Scene {n}: a {slot['domain']} moment at age {age}, in a room with a "
        "humming radiator and rain on the windows.",
        "content_summary": f"At {age} I faced a {slot['domain']} problem and handled it my "
        "own way, which left me uneasy and thinking about it before bed.",
        "content_full": (
            'The rain kept tapping the window. "Are you coming?" my friend asked. '
            "My heart pounded. I thought: I cannot get this wrong. That evening I lay awake. "
        )
        * 20,
        "triggers": ["rain", "a waiting question", "a humming radiator", "being late"],
        "psych_conclusion": "The episode confirms a schema of conditional acceptance: "
        "approval must be earned through getting things right, and mistakes feel like "
        "threats to belonging rather than ordinary events.",
        "behavior_policy": "When asked to decide quickly, I slow down, check twice and ask "
        "someone I trust before committing, even when that makes me late.",
        "emotion_signature": {
            "primary": "anxiety",
            "secondary": "relief",
            "intensity": TIER_INTENSITY[slot["tier"]],
        },
        "relevance_tags": ["decision", "approval", "worry", slot["domain"]],
    }


class MemoryResponder:
    """Answers each memory request with a valid memory for its slot (a new context each
    time). ``faults`` are served first, one per request (a Fault, a Reply, PASS or any
    JSON value); ``always`` answers every request; ``edit(memory, slot)`` may change
    the valid memory before it is sent."""

    def __init__(self):
        self.faults: list = []
        self.always = None
        self.edit = None
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def __call__(self, req):
        with self._lock:
            if self.always is not None:
                return self.always
            injected = self.faults.pop(0) if self.faults else PASS
            n = next(self._count)
        if injected is not PASS:
            return injected
        slot = slot_of(req)
        memory = memory_for(slot, n)
        if self.edit is not None:
            memory = self.edit(memory, slot)
        return memory


def memory_env(server, *, timeout=5.0, max_retries=1, concurrency=8) -> dict[str, str]:
    return {
        "HEARTBENCH_MEMORY_KIND": "anthropic",
        "HEARTBENCH_MEMORY_BASE_URL": server.base_url("anthropic"),
        "HEARTBENCH_MEMORY_MODEL": "fake-memory-writer",
        "HEARTBENCH_MEMORY_TIMEOUT": str(timeout),
        "HEARTBENCH_MEMORY_MAX_RETRIES": str(max_retries),
        "HEARTBENCH_MEMORY_BACKOFF_BASE": "0.01",
        "HEARTBENCH_MEMORY_BACKOFF_CAP": "0.05",
        "HEARTBENCH_MEMORY_CONCURRENCY": str(concurrency),
        "HEARTBENCH_MEMORY_PRICE_IN": "3",
        "HEARTBENCH_MEMORY_PRICE_OUT": "15",
    }


@pytest.fixture
def responder():
    return MemoryResponder()


@pytest.fixture
def memory_server(responder):
    with FakeProviderServer(responder=responder) as server:
        yield server


@pytest.fixture
def memory_provider(monkeypatch, memory_server):
    """The memory provider configured in this process against the fake server."""
    for name, value in memory_env(memory_server).items():
        monkeypatch.setenv(name, value)
    clear_client_cache()
    yield memory_server
    clear_client_cache()


def frozen_profile(key="CHAR_01", *, frozen=True, **fields):
    character = CharacterFactory(key=key)
    profile = ProfileVersionFactory(character=character, number=1, **fields)
    if frozen:
        profile.frozen_at = timezone.now()
        profile.save()
    return profile


def plan_for(profile, counts: dict[int, int], *, kind=MemoryPlan.Kind.INITIAL) -> MemoryPlan:
    """A plan asking for ``counts[age]`` memories at each age (0 elsewhere)."""
    weights = QuotaWeights.objects.order_by("-number").first() or QuotaWeights.objects.create(
        number=1, weights=quota.default_weights()
    )
    quotas = [counts.get(age, 0) for age in quota.SEGMENT_AGES]
    return MemoryPlan.objects.create(
        character=profile.character,
        profile_version=profile,
        weights=weights,
        kind=kind,
        accepted=0,
        existing=[0] * quota.SEGMENT_COUNT,
        quotas=quotas,
    )
