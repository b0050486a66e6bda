"""The App. B.5 storage serialization of memories, written for download.

One block per memory, read back field for field by the corpus importer
(``annotation.corpus_import.memory_storage.parse_memory_storage``; that module sits
above this one, so the rules it applies are restated here, and
tests/memory_generation/test_storage.py holds the two together):

    ===MEM_CHAR_12_O_HIGH_0007===
    timeline: adolescence (14 years old)
    context: ...
    content_summary: ...
    triggers: ["...", "..."]            one line of JSON
    psych_conclusion: ...
    behavior_policy: ...
    emotion_primary: fear
    emotion_secondary:                  empty when the memory has none
    emotion_intensity: 0.72             repr of the float: read back to the same number
    relevance_tags: ["...", "..."]
    is_demo_standin: false              always written, so the label round-trips too
    ---content_full---
    The narrative, as stored, up to the blank line that ends the block.

A preamble value with several lines goes on as continuation lines indented by two
spaces (an empty line of the value is written as the two spaces alone).

What the format cannot carry, and the parser has no escape for, is refused rather than
silently changed (``StorageFormatError``, naming every memory and field at fault):

- in a preamble value: a line with whitespace at its start or end (the parser strips
  every line), a trailing line break, or a continuation line that reads
  ``---content_full---`` (it would be taken for the delimiter);
- in ``content_full``: a line that looks like a block header (``===X===``), a line
  ending in a carriage return, or a trailing line break (the parser drops both);
- an empty required value (the importer refuses it), an empty or non-text list item;
- a memory id the header cannot hold (``=`` or whitespace in it), or one whose sequence
  and anonymized id disagree with the memory's own, since the importer derives them
  from the header.

Generated memories come from validated JSON whose text fields do not start or end with
whitespace, so in practice the refusals name a memory edited by hand.
"""

import json
import re

from annotation.corpus.models import MEMORY_ID_RE
from core.plurals import agree, counted

HEADER = re.compile(r"^===(?P<id>[^=\s]+)===\s*$")
DELIMITER = "---content_full---"
# The preamble's text fields, in the order the blocks list them.
TEXT_FIELDS = ("timeline", "context", "content_summary")
LIST_FIELDS = ("triggers", "relevance_tags")
REQUIRED_TEXT = (
    "timeline",
    "context",
    "content_summary",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
)
CONTINUATION_INDENT = "  "


class StorageFormatError(ValueError):
    """Memories the storage serialization cannot carry exactly; ``problems`` lists
    ``(memory_id, field, why)``."""

    def __init__(self, problems: list[tuple[str, str, str]]):
        self.problems = problems
        shown = "; ".join(f"{m} {f}: {why}" for m, f, why in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        super().__init__(
            f"{counted(len(problems), 'problem')} {agree(len(problems), 'keeps', 'keep')} "
            "these memories out of the storage "
            f"serialization: {shown}{more}"
        )


def _value_problems(value: str) -> list[str]:
    problems = []
    if value.endswith("\n"):
        problems.append("ends with a line break, which the format drops")
    for n, line in enumerate(value.split("\n"), start=1):
        if line != line.strip():
            problems.append(f"line {n} starts or ends with whitespace, which the format strips")
        elif n > 1 and line == DELIMITER:
            problems.append(f"line {n} reads {DELIMITER}, which would end the preamble")
    return problems


def _content_problems(text: str) -> list[str]:
    problems = []
    if not text.strip():
        problems.append("is empty")
    if text.endswith("\n"):
        problems.append("ends with a line break, which the format drops")
    for n, line in enumerate(text.split("\n"), start=1):
        if HEADER.match(line.removesuffix("\r")):
            problems.append(f"line {n} looks like a block header ({line.strip()[:40]})")
        if line.endswith("\r"):
            problems.append(f"line {n} ends with a carriage return, which the format drops")
    return problems


def memory_problems(memory) -> list[tuple[str, str]]:
    """``(field, why)`` for each thing about ``memory`` the format cannot carry exactly."""
    found: list[tuple[str, str]] = []
    memory_id = memory.memory_id
    match = MEMORY_ID_RE.match(memory_id)
    if not HEADER.match(f"==={memory_id}===") or not match:
        found.append(("memory_id", f"{memory_id!r} cannot be a ===MEM_…=== header"))
    else:
        sequence = int(match["seq"])
        if sequence != memory.sequence:
            found.append(("sequence", f"is {memory.sequence}, but the id says {sequence}"))
        expected = f"MEM_{match['char']}_{sequence:04d}"
        if memory.anonymized_id != expected:
            found.append(("anonymized_id", f"is {memory.anonymized_id}, the id gives {expected}"))
    for field in (*REQUIRED_TEXT, "emotion_secondary"):
        value = getattr(memory, field)
        if field in REQUIRED_TEXT and not value.strip():
            found.append((field, "is empty"))
            continue
        found.extend((field, why) for why in _value_problems(value))
    for field in LIST_FIELDS:
        for i, item in enumerate(getattr(memory, field)):
            if not isinstance(item, str) or not item.strip():
                found.append((f"{field}[{i}]", "must be non-empty text"))
    found.extend(("content_full", why) for why in _content_problems(memory.content_full))
    return found


def _preamble(memory) -> dict[str, str]:
    return {
        "timeline": memory.timeline,
        "context": memory.context,
        "content_summary": memory.content_summary,
        "triggers": json.dumps(list(memory.triggers), ensure_ascii=False),
        "psych_conclusion": memory.psych_conclusion,
        "behavior_policy": memory.behavior_policy,
        "emotion_primary": memory.emotion_primary,
        "emotion_secondary": memory.emotion_secondary,
        "emotion_intensity": repr(float(memory.emotion_intensity)),
        "relevance_tags": json.dumps(list(memory.relevance_tags), ensure_ascii=False),
        "is_demo_standin": "true" if memory.is_demo_standin else "false",
    }


def serialize(memories) -> str:
    """The storage serialization of ``memories`` (``corpus.Memory`` rows, in the order
    given), or ``StorageFormatError`` naming everything it cannot carry; nothing is
    written partly."""
    memories = list(memories)
    problems = [
        (memory.memory_id, field, why)
        for memory in memories
        for field, why in memory_problems(memory)
    ]
    if problems:
        raise StorageFormatError(problems)
    blocks = []
    for memory in memories:
        lines = [f"==={memory.memory_id}==="]
        for key, value in _preamble(memory).items():
            first, *rest = value.split("\n")
            lines.append(f"{key}: {first}".rstrip(" "))
            lines.extend(f"{CONTINUATION_INDENT}{line}" for line in rest)
        lines.append(DELIMITER)
        lines.append(memory.content_full)
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)
