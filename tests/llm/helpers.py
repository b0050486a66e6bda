"""Constants and helpers shared by the provider-layer tests."""

import asyncio

from llm import ProviderConfig, ProviderKind

# Unique enough that finding it anywhere but the auth header is a leak.
SECRET = "sk-test-7d1f0c9e-DO-NOT-LEAK-4b2a"
HTTP_KINDS = ["anthropic", "openai", "openai_compatible", "gemini"]

# App. L.5.3: the Stage 3 candidate the generation pipeline asks for.
CANDIDATE_SCHEMA = {
    "type": "object",
    "properties": {
        "character_id": {"type": "string"},
        "scenario_id": {"type": "string"},
        "inner_consciousness": {
            "type": "object",
            "properties": {
                "summary": {"type": "string", "minLength": 1},
                "emotional_tone": {"type": "string"},
                "core_reasoning": {"type": "string"},
            },
            "required": ["summary", "emotional_tone", "core_reasoning"],
        },
        "final_decision": {"type": "string", "minLength": 1},
    },
    "required": ["character_id", "scenario_id", "inner_consciousness", "final_decision"],
}

# App. L.5.1: Stage 1 screening returns a bare array of activated memories.
SCREENING_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "memory_id": {"type": "string", "pattern": "^MEM_[0-9]{2}_[0-9]{4}$"},
            "reason": {"type": "string"},
        },
        "required": ["memory_id", "reason"],
    },
}

VALID_CANDIDATE = {
    "character_id": "CHAR_04",
    "scenario_id": "SCN_ENTERING_MIDLIFE_5",
    "inner_consciousness": {
        "summary": "The quiet in the house presses on me; I do not want to hide in routine.",
        "emotional_tone": "restless, tender; moderate",
        "core_reasoning": "I move toward the people I love when silence grows.",
    },
    "final_decision": "I choose to break the silence. I stand up and say: let's go.",
}

SYSTEM = "You will fully become the character described below."
USER = "## Who you are\nCHAR_04 ...\n## What you are going through\nSCN_ENTERING_MIDLIFE_5"


def config_for(server, kind, **overrides):
    values = {
        "kind": ProviderKind(kind),
        "model": f"fake-{kind}-model",
        "base_url": server.base_url(kind),
        "api_key": SECRET,
        "timeout": 5.0,
        "max_retries": 3,
        "backoff_base": 0.01,
        "backoff_cap": 0.05,
        "max_tokens": 512,
    }
    values.update(overrides)
    return ProviderConfig(**values)


def call(client, mode="sync", **kwargs):
    """complete_json or acomplete_json (in a fresh event loop) with test defaults."""
    kwargs.setdefault("system", SYSTEM)
    kwargs.setdefault("user", USER)
    kwargs.setdefault("schema", CANDIDATE_SCHEMA)
    if mode == "sync":
        return client.complete_json(**kwargs)

    async def run():
        try:
            return await client.acomplete_json(**kwargs)
        finally:
            await client.aclose()

    return asyncio.run(run())
