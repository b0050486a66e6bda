"""The memory storage serialization of App. B.5: one text block per memory.

    ===MEM_CHAR_03_C_HIGH_0002===          (or the authors' short form ===MEM_03_0002===)
    timeline: childhood (6 years old)
    context: ...
    content_summary: ...
    triggers: ["...", "..."]               (a JSON or Python list, or comma-separated)
    psych_conclusion: ...
    behavior_policy: ...
    emotion_primary: fear
    emotion_secondary: shame
    emotion_intensity: 0.72
    relevance_tags: ["...", "..."]
    ---content_full---
    The full first-person narrative, up to the next header line.

A preamble line that starts with whitespace continues the previous value on a new
line. Blank lines that end a block are the separator, not part of ``content_full``.
The short header names no trait label; the importer takes it from an ``id:`` line,
from the character's other memories, or from its profile's trait anchor.
"""

import ast
import contextlib
import json
import math
import re

from annotation.corpus_import.corpus import Origin, ParsedCorpus
from annotation.corpus_import.fields import Fields
from annotation.corpus_import.parse_characters import memory_fields, memory_id_fields
from annotation.corpus_import.problems import describe
from annotation.corpus_import.vocabulary import (
    MEMORY_ID,
    MEMORY_ID_HINT,
    SHORT_MEMORY_ID,
    anonymized_memory_id,
)

HEADER = re.compile(r"^===(?P<id>[^=\s]+)===\s*$")
DELIMITER = "---content_full---"
PREAMBLE_KEY = re.compile(r"^(?P<key>[a-z_]+)\s*:\s?(?P<value>.*)$")
PREAMBLE_FIELDS = [
    "timeline",
    "context",
    "content_summary",
    "triggers",
    "psych_conclusion",
    "behavior_policy",
    "emotion_primary",
    "emotion_intensity",
    "relevance_tags",
]
OPTIONAL_PREAMBLE_FIELDS = [
    "id",
    "memory_id",
    "character_id",
    "emotion_secondary",
    "is_demo_standin",
]
_LIST_LITERAL_LIMIT = 20_000


def parse_memory_storage(name: str, text: str, corpus: ParsedCorpus) -> int:
    p = corpus.problems_for(name)
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    headers = [i for i, line in enumerate(lines) if HEADER.match(line)]
    for i in range(headers[0] if headers else len(lines)):
        if lines[i].strip():
            p.add("", f"line {i + 1}", "text before the first ===MEM_…=== header")
            break
    for n, start in enumerate(headers):
        end = headers[n + 1] if n + 1 < len(headers) else len(lines)
        _parse_block(name, lines, start, end, corpus)
    return len(headers)


def _parse_block(name: str, lines: list[str], start: int, end: int, corpus: ParsedCorpus) -> None:
    p = corpus.problems_for(name)
    header = HEADER.match(lines[start])["id"]
    label = f"{header} (line {start + 1})"
    before = p.count
    try:
        delimiter = next(i for i in range(start + 1, end) if lines[i].strip() == DELIMITER)
    except StopIteration:
        p.add(label, "content_full", f"missing the {DELIMITER} delimiter line")
        return
    preamble = _read_preamble(p, label, lines, start + 1, delimiter)
    if preamble is None:
        return
    body = "\n".join(lines[delimiter + 1 : end]).rstrip("\n")
    record = _typed(preamble)
    record["content_full"] = body
    m = Fields(p, label, record)
    m.expect_keys([*PREAMBLE_FIELDS, "content_full"], OPTIONAL_PREAMBLE_FIELDS)
    identity = _identity(m, header)
    body_fields = memory_fields(m, flat_emotion=True)
    standin = m.boolean("is_demo_standin")  # None when the block does not say
    if p.count != before or identity is None or body_fields is None:
        return
    memory = {**identity, **body_fields, "is_demo_standin": standin}
    origin = Origin(name, label)
    if memory["label"] is None:
        corpus.unlabelled_memories.append((memory, origin))
    else:
        corpus.add("memories", memory["memory_id"], memory, origin, "header")


def _read_preamble(p, label, lines, first, stop) -> dict | None:
    values: dict[str, str] = {}
    key = None
    ok = True
    for i in range(first, stop):
        line = lines[i]
        if line and line[0] in " \t" and key is not None:
            values[key] += "\n" + line.strip()
            continue
        if not line.strip():
            continue
        match = PREAMBLE_KEY.match(line)
        if not match:
            p.add(label, f"line {i + 1}", f"expected a `key: value` line, got {describe(line)}")
            ok = False
            continue
        key = match["key"]
        if key in values:
            p.add(label, key, f"given twice (again on line {i + 1})")
            ok = False
        values[key] = match["value"].strip()
    if not ok:
        return None
    return {k: v.rstrip("\n") for k, v in values.items()}


def _typed(preamble: dict[str, str]) -> dict:
    """Turn preamble strings into the JSON types the shared validation expects; a value
    that does not convert stays a string so the message shows what was written."""
    record = dict(preamble)
    for key in ("triggers", "relevance_tags"):
        if key in record:
            record[key] = _list_value(record[key])
    if "emotion_intensity" in record:
        # Not a number: left as written, for the validation to name it.
        with contextlib.suppress(ValueError):
            value = float(record["emotion_intensity"])
            if math.isfinite(value):
                record["emotion_intensity"] = value
    if "is_demo_standin" in record:
        flag = record["is_demo_standin"].lower()
        record["is_demo_standin"] = {"true": True, "false": False}.get(
            flag, record["is_demo_standin"]
        )
    return record


def _list_value(raw: str):
    text = raw.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
            if len(text) <= _LIST_LITERAL_LIMIT:
                try:
                    value = ast.literal_eval(text)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    value = None
        return value if isinstance(value, list) else raw
    return [item.strip() for item in text.split(",") if item.strip()]


def _identity(m: Fields, header: str) -> dict | None:
    """memory_id etc. from the header and an optional id line; label None when only the
    short header form names the memory."""
    explicit_key = "memory_id" if m.has("memory_id") else "id" if m.has("id") else None
    explicit = memory_id_fields(m, explicit_key, None) if explicit_key else None
    if explicit_key and explicit is None:
        return None
    full = MEMORY_ID.match(header)
    short = SHORT_MEMORY_ID.match(header)
    if full:
        identity = {
            "memory_id": header,
            "anonymized_id": anonymized_memory_id(full["char"], int(full["seq"])),
            "character_key": full["char"],
            "sequence": int(full["seq"]),
            "label": full["label"],
        }
    elif short:
        character = f"CHAR_{short['num']}"
        identity = {
            "memory_id": None,
            "anonymized_id": anonymized_memory_id(character, int(short["seq"])),
            "character_key": character,
            "sequence": int(short["seq"]),
            "label": None,
        }
    else:
        m.report(
            "header", f"{MEMORY_ID_HINT}, or the short form MEM_03_0002; got {describe(header)}"
        )
        return None
    if explicit:
        same = (
            explicit["character_key"] == identity["character_key"]
            and explicit["sequence"] == identity["sequence"]
            and (identity["label"] is None or explicit["label"] == identity["label"])
        )
        if not same:
            m.report(explicit_key, f"{explicit['memory_id']} does not match the header {header}")
            return None
        identity = explicit
    if m.has("character_id"):
        character = m.text("character_id")
        if character is not None and character != identity["character_key"]:
            m.report(
                "character_id", f"is {character}, but the header names {identity['character_key']}"
            )
            return None
    return identity


def dump_memory_storage(memories) -> str:
    """Serialize memories (Memory rows or dicts of their fields) in this format, with
    full-id headers so the file imports without any other context."""
    blocks = []
    for memory in memories:
        get = memory.get if isinstance(memory, dict) else lambda k, _m=memory: getattr(_m, k)
        lines = [f"==={get('memory_id')}==="]
        values = {
            "timeline": get("timeline"),
            "context": get("context"),
            "content_summary": get("content_summary"),
            "triggers": json.dumps(list(get("triggers")), ensure_ascii=False),
            "psych_conclusion": get("psych_conclusion"),
            "behavior_policy": get("behavior_policy"),
            "emotion_primary": get("emotion_primary"),
            "emotion_secondary": get("emotion_secondary"),
            "emotion_intensity": repr(float(get("emotion_intensity"))),
            "relevance_tags": json.dumps(list(get("relevance_tags")), ensure_ascii=False),
        }
        if get("is_demo_standin"):
            values["is_demo_standin"] = "true"
        for key, value in values.items():
            first, *rest = str(value).split("\n")
            lines.append(f"{key}: {first}")
            lines.extend(f"  {line}" for line in rest)
        lines.append(DELIMITER)
        lines.append(get("content_full"))
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)
