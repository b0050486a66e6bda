"""Realistic synthetic memories: the demo's stand-ins and the benchmarks' corpus.

Each memory is one scene written by the offline demo provider's memory answer
(``llm.demo.memories``), the same text a dry run of memory generation produces: a
first-person narrative of 2,000-4,500 characters from word banks per setting and age
group, with an intensity tier (A core wounds … D ordinary days) and a domain (workplace,
interpersonal, health, creative, daily life) drawn per memory. Sentences are drawn without
repetition and shuffled, so memories of one character share few content words and the
audit's TF-IDF near-duplicate check (criterion 4) flags only a small share of them.

Deterministic: a memory's text depends only on the seed and its id, not on how many
memories are generated or in which order. Every sentence-like field starts with the
caller's label (the demo's "[Demo stand-in …]"), and the context and summary stay within
the protocol's word limits with the label counted.
"""

from __future__ import annotations

import hashlib
import random

from core import protocol
from core.life_stages import FIRST_AGE, LAST_AGE, life_stage_for_age
from llm.demo.material import DEMO_LABEL
from llm.demo.memories import DOMAINS, memory_answer

# How often each intensity tier comes up: core wounds are rare, ordinary days and daily
# friction make most of a life.
TIERS = ("A", "B", "C", "D")
TIER_WEIGHTS = (1, 3, 4, 3)
LABELLED_FIELDS = ("context", "content_summary", "psych_conclusion", "behavior_policy")
WORD_LIMITS = {
    "context": protocol.MEMORY_CONTEXT_WORDS[1],
    "content_summary": protocol.MEMORY_SUMMARY_WORDS[1],
}


def _rng(seed: int, memory_id: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{memory_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _relabel(text: str, label: str, limit: int | None) -> str:
    """The provider's label replaced by ``label``; cut to ``limit`` words in all."""
    body = text.removeprefix(DEMO_LABEL).strip()
    if limit is not None:
        room = limit - len(label.split())
        words = body.split()
        if len(words) > room:
            body = " ".join(words[:room]).rstrip(",;:.") + "."
    return f"{label} {body}" if label else body


def memory(
    memory_id: str,
    age: int,
    *,
    seed: int = protocol.PROTOCOL_SEED,
    label: str = "",
    tier: str | None = None,
    domain: str | None = None,
) -> dict:
    """One memory in the dataset card's layout (``episodic_memory_set`` entry)."""
    rng = _rng(seed, memory_id)
    tier = tier or rng.choices(TIERS, weights=TIER_WEIGHTS)[0]
    domain = domain or rng.choice(DOMAINS)
    stage = life_stage_for_age(age).key
    prompt = (
        f"Target age: {age}\nLife-stage bin: {stage}\nIntensity tier: {tier}\n"
        f"Domain: {domain}\nMemory id: {memory_id}\n"
    )
    value = memory_answer(user=prompt, schema=None, rng=rng)
    value["id"] = memory_id
    for name in LABELLED_FIELDS:
        value[name] = _relabel(value[name], label, WORD_LIMITS.get(name))
    content = value["content_full"].removeprefix(DEMO_LABEL).strip()
    value["content_full"] = f"{label} {content}" if label else content
    return value


def spread_ages(count: int, first: int = FIRST_AGE, last: int = LAST_AGE) -> list[int]:
    """``count`` event ages from ``first`` to ``last``, evenly spread, in order."""
    span = last - first + 1
    return [first + i * span // count for i in range(count)]


def memories(
    key: str, count: int, *, seed: int = protocol.PROTOCOL_SEED, label: str = ""
) -> list[dict]:
    """``count`` memories of character ``key`` across the life span, in timeline order,
    with ids ``MEM_<key>_<seq>``."""
    return [
        memory(f"MEM_{key}_{seq:04d}", age, seed=seed, label=label)
        for seq, age in enumerate(spread_ages(count), start=1)
    ]


def standin_row(character, m: dict, *, anonymized_id: str, sequence: int, age: int):
    """An unsaved ``Memory`` of ``character`` holding the generated memory ``m`` (the
    fields the importer writes), for the benchmarks' bulk inserts."""
    from annotation.corpus.models import Memory

    e = m["emotion_signature"]
    return Memory(
        memory_id=m["id"],
        anonymized_id=anonymized_id,
        character=character,
        sequence=sequence,
        timeline=m["timeline"],
        event_age=age,
        life_stage=life_stage_for_age(age).key,
        context=m["context"],
        content_summary=m["content_summary"],
        content_full=m["content_full"],
        triggers=m["triggers"],
        psych_conclusion=m["psych_conclusion"],
        behavior_policy=m["behavior_policy"],
        emotion_primary=e["primary"],
        emotion_secondary=e["secondary"],
        emotion_intensity=e["intensity"],
        relevance_tags=m["relevance_tags"],
        is_demo_standin=True,
    )
