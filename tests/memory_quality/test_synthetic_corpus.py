"""The realistic synthetic memories (the demo's stand-ins, the benchmarks' corpus) pass a
default memory audit: the near-duplicate criterion flags few of them, and the audit still
catches a real near-copy among them. No database, no LLM."""

import re

from audit.memory_quality.criteria import (
    SEMANTIC_DUPLICATION,
    AuditConfig,
    MemoryText,
    audit_memories,
    word_count,
)
from core import protocol
from heartbench_site import synthetic_corpus

LABEL = "[Demo stand-in, not from the HEART-Bench release]"
AGE = re.compile(r"\((\d+) years old\)")


def as_text(memory: dict, character: str = "CHAR_01") -> MemoryText:
    return MemoryText(
        memory["id"],
        character,
        int(AGE.search(memory["timeline"]).group(1)),
        memory["context"],
        memory["content_summary"],
        memory["content_full"],
        float(memory["emotion_signature"]["intensity"]),
    )


def flagged(memories: list[dict]) -> tuple[set[str], set[str]]:
    """(every memory the default audit flags, those flagged as near-duplicates)."""
    result = audit_memories([as_text(m) for m in memories], AuditConfig())
    duplicates = {
        key
        for key, found in result.findings.items()
        if any(f.criterion == SEMANTIC_DUPLICATION for f in found)
    }
    return result.flagged(), duplicates


def test_a_default_audit_of_200_generated_memories_flags_under_five_percent():
    memories = synthetic_corpus.memories("CHAR_01", 200, label=LABEL)
    every, duplicates = flagged(memories)
    assert len(duplicates) < 0.05 * len(memories)
    assert len(every) < 0.05 * len(memories)


def test_the_audit_still_flags_a_near_copy_among_generated_memories():
    memories = synthetic_corpus.memories("CHAR_01", 60, label=LABEL)
    original = memories[10]
    copy = dict(original, id="MEM_CHAR_01_COPY")
    copy["content_full"] = original["content_full"].replace(" I ", " I quietly ", 2)
    # Inserted right after its original: same character, same age window.
    every, duplicates = flagged([*memories[:11], copy, *memories[11:]])
    assert duplicates == {"MEM_CHAR_01_COPY"}


def test_memories_vary_in_age_tier_domain_and_text_and_repeat_for_the_same_seed():
    memories = synthetic_corpus.memories("CHAR_02", 120, label=LABEL)
    assert memories == synthetic_corpus.memories("CHAR_02", 120, label=LABEL)
    other_seed = synthetic_corpus.memories("CHAR_02", 120, label=LABEL, seed=7)
    pairs = zip(memories, other_seed, strict=True)
    assert all(a["content_full"] != b["content_full"] for a, b in pairs)
    ages = [int(AGE.search(m["timeline"]).group(1)) for m in memories]
    assert ages == sorted(ages) and ages[0] == 6 and ages[-1] >= 40
    # Intensities from every tier band (ordinary days to core wounds).
    intensities = [m["emotion_signature"]["intensity"] for m in memories]
    assert min(intensities) < 0.35 and max(intensities) > 0.8
    # Several settings (the first relevance tag): school, workplace, health, ...
    assert len({m["relevance_tags"][0] for m in memories}) >= 4
    openings = {m["content_full"].split(".")[1] for m in memories}
    assert len(openings) > 100
    assert len({m["id"] for m in memories}) == 120


def test_every_text_is_labelled_and_within_the_protocol_limits():
    low_context, high_context = protocol.MEMORY_CONTEXT_WORDS
    high_summary = protocol.MEMORY_SUMMARY_WORDS[1]
    low_chars, high_chars = protocol.MEMORY_GUIDED_CHARS
    for memory in synthetic_corpus.memories("CHAR_03", 80, label=LABEL):
        for name in ("context", "content_summary", "content_full", "psych_conclusion"):
            assert memory[name].startswith(LABEL + " ")
        assert "[offline demo provider]" not in memory["content_full"]
        assert low_context <= word_count(memory["context"]) <= high_context
        assert word_count(memory["content_summary"]) <= high_summary
        assert low_chars <= len(memory["content_full"]) <= high_chars
