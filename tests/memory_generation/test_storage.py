"""The App. B.5 storage writer against the importer's own parser: every field of every
memory comes back exactly, and what the format cannot carry is refused by name."""

import pytest

from annotation.corpus.models import Memory
from annotation.corpus_import.corpus import ParsedCorpus
from annotation.corpus_import.memory_storage import parse_memory_storage
from annotation.memory_generation.storage import StorageFormatError, memory_problems, serialize
from core.life_stages import life_stage_for_age

FIELDS = (
    "memory_id",
    "anonymized_id",
    "sequence",
    "timeline",
    "event_age",
    "life_stage",
    "context",
    "content_summary",
    "content_full",
    "triggers",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
    "emotion_secondary",
    "emotion_intensity",
    "relevance_tags",
    "is_demo_standin",
)


def memory(sequence: int, age: int = 14, **fields) -> Memory:
    values = {
        "memory_id": f"MEM_CHAR_12_O_HIGH_{sequence:04d}",
        "anonymized_id": f"MEM_CHAR_12_{sequence:04d}",
        "sequence": sequence,
        "timeline": f"adolescence ({age} years old)",
        "event_age": age,
        "life_stage": life_stage_for_age(age).key,
        "context": "The school gym after practice, rain drumming on the roof.",
        "content_summary": "I stay behind to fold the mats and my coach asks me why.",
        "content_full": 'I fold the blue mats one by one.\n\n"Why are you still here?" she asks.',
        "triggers": ["rain on a roof", "a coach's question"],
        "psych_conclusion": "Helping unasked earns a place; a question feels like a test.",
        "behavior_policy": "Volunteer for quiet tasks when the group breaks up.",
        "emotion_primary": "nervousness",
        "emotion_secondary": "pride",
        "emotion_intensity": 0.55,
        "relevance_tags": ["school", "sport", "approval"],
        "is_demo_standin": False,
    }
    values.update(fields)
    return Memory(**values)


def parse(text: str) -> ParsedCorpus:
    corpus = ParsedCorpus()
    parse_memory_storage("memories.txt", text, corpus)
    return corpus


def read_back(memories) -> list[dict]:
    corpus = parse(serialize(memories))
    assert corpus.problems == []
    return [corpus.memories[m.memory_id][0] for m in memories]


def as_fields(m: Memory) -> dict:
    return {f: getattr(m, f) for f in FIELDS} | {"character_key": "CHAR_12", "label": "O_HIGH"}


AWKWARD = [
    memory(1),
    memory(
        2,
        age=7,
        timeline="school age (7 years old)",
        context='Kitchen: 7 a.m., my mother\'s radio says: "rain"; the toast burns.',
        content_summary="Key: value lines, colons: everywhere: and a, comma inside.",
        content_full=(
            "    I start with four spaces, as the narrative does.\n"
            "===MEM_CHAR_12_O_HIGH_0009=== is not a header when words follow it\n"
            "--- a dash line ---\n"
            "---content_full---\n"
            "timeline: not a preamble line here\n"
            "\tA tab-indented line, then an empty one.\n"
            "\n"
            "Ünïcödé: 雨の日, emoji 🌧️, and a final line with trailing spaces   "
        ),
        triggers=["colon: inside", 'quote " inside', "comma, inside", "日本語", "[bracket]"],
        psych_conclusion="First paragraph.\n\nSecond paragraph after an empty line.\nThird.",
        behavior_policy="emotion_primary: looks like a key but is a continuation",
        emotion_secondary="",
        emotion_intensity=0.1 + 0.2,  # 0.30000000000000004: repr keeps every digit
        relevance_tags=[],
        is_demo_standin=True,
    ),
    memory(3, age=50, timeline="entering middle adulthood (50 years old)", emotion_intensity=1.0),
    memory(4, age=6, timeline="school age (6 years old)", emotion_intensity=0.0, triggers=[]),
]


def test_real_shaped_memories_round_trip_exactly_through_the_importers_parser():
    assert read_back(AWKWARD) == [as_fields(m) for m in AWKWARD]


def test_the_label_and_the_empty_secondary_emotion_come_back_as_given():
    back = read_back(AWKWARD)
    assert [b["is_demo_standin"] for b in back] == [False, True, False, False]
    assert back[1]["emotion_secondary"] == ""
    assert back[1]["emotion_intensity"] == 0.1 + 0.2


def test_blocks_have_the_b5_shape():
    text = serialize([memory(1)])
    lines = text.split("\n")
    assert lines[0] == "===MEM_CHAR_12_O_HIGH_0001==="
    assert lines[1] == "timeline: adolescence (14 years old)"
    assert "---content_full---" in lines
    assert lines[lines.index("---content_full---") + 1] == "I fold the blue mats one by one."
    assert text.endswith("\n\n")


@pytest.mark.parametrize(
    ("fields", "field", "why"),
    [
        (
            {"content_full": "Fine start.\n===MEM_CHAR_12_O_HIGH_0009===\nmore"},
            "content_full",
            "header",
        ),
        ({"content_full": "Ends with a break\n"}, "content_full", "line break"),
        ({"content_full": "Windows line\r\nend"}, "content_full", "carriage return"),
        ({"content_full": "   "}, "content_full", "empty"),
        ({"context": " leading space"}, "context", "whitespace"),
        ({"psych_conclusion": "one\n  indented continuation"}, "psych_conclusion", "whitespace"),
        ({"behavior_policy": "one\n---content_full---"}, "behavior_policy", "preamble"),
        ({"content_summary": "two lines\n"}, "content_summary", "line break"),
        ({"emotion_primary": ""}, "emotion_primary", "empty"),
        ({"triggers": ["ok", " "]}, "triggers[1]", "non-empty"),
        ({"memory_id": "MEM_CHAR_12_O_HIGH_0005"}, "sequence", "the id says 5"),
        ({"anonymized_id": "MEM_CHAR_12_0002"}, "anonymized_id", "MEM_CHAR_12_0001"),
        ({"memory_id": "MEM CHAR 12"}, "memory_id", "header"),
    ],
)
def test_what_the_format_cannot_carry_is_refused_by_name(fields, field, why):
    bad = memory(1, **fields)
    problems = memory_problems(bad)
    assert any(f == field and why in message for f, message in problems), problems
    with pytest.raises(StorageFormatError) as refused:
        serialize([memory(2), bad])
    assert bad.memory_id in str(refused.value) and field in str(refused.value)


def test_each_refusal_is_real_the_parser_would_change_or_reject_the_value():
    """The refusals are not caution: written anyway (by the importer's own writer),
    each of these comes back different or is rejected."""
    from annotation.corpus_import.memory_storage import dump_memory_storage

    for fields, field in [
        ({"content_full": "a\n===MEM_CHAR_12_O_HIGH_0009===\nb"}, "content_full"),
        ({"content_full": "Ends with a break\n"}, "content_full"),
        ({"context": " leading space"}, "context"),
        ({"psych_conclusion": "one\n  indented"}, "psych_conclusion"),
    ]:
        bad = memory(1, **fields)
        corpus = parse(dump_memory_storage([bad]))
        back = corpus.memories.get(bad.memory_id, ({},))[0]
        assert corpus.problems or back.get(field) != fields[field], field
