"""The model-facing JSON of one memory (seed 000 App. B.7 Table 8, L.3) and the checks a
schema cannot express. Pure: no Django.

``MEMORY_SCHEMA`` is what ``llm`` validates each reply against (another round names
the problems). ``memory_problems`` then checks what depends on the request: the
timeline states the slot's target age; and what the store needs: a narrative within the
audit's 10,000-character bound (App. B.6 criterion 5), an intensity in [0, 1], no
required text left blank, and lengths that fit the corpus columns. Its problems go back
to the model as another round too (``services.calls``); then the slot fails.
"""

import re

from llm.structured import has_nul

# App. B.6 criterion 5: the audit flags content_full over 10,000 characters.
CONTENT_FULL_MAX_CHARS = 10_000
# Column sizes of corpus.Memory.
TIMELINE_MAX_CHARS = 120
EMOTION_MAX_CHARS = 100

TEXT_FIELDS = (
    "timeline",
    "context",
    "content_summary",
    "content_full",
    "psych_conclusion",
    "behavior_policy",
)

_text = {"type": "string", "minLength": 1}
_string_list = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}

MEMORY_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "timeline": {**_text, "maxLength": TIMELINE_MAX_CHARS},
        "context": _text,
        "content_summary": _text,
        "content_full": {**_text, "maxLength": CONTENT_FULL_MAX_CHARS},
        "triggers": _string_list,
        "psych_conclusion": _text,
        "behavior_policy": _text,
        "emotion_signature": {
            "type": "object",
            "properties": {
                "primary": {**_text, "maxLength": EMOTION_MAX_CHARS},
                "secondary": {"type": "string", "maxLength": EMOTION_MAX_CHARS},
                "intensity": {"type": "number", "minimum": 0, "maximum": 1},
            },
            "required": ["primary", "secondary", "intensity"],
        },
        "relevance_tags": _string_list,
    },
    "required": [
        "id",
        "timeline",
        "context",
        "content_summary",
        "content_full",
        "triggers",
        "psych_conclusion",
        "behavior_policy",
        "emotion_signature",
        "relevance_tags",
    ],
}

_AGE_PATTERNS = (
    re.compile(r"(\d{1,3})\s*(?:-\s*)?(?:years?|yrs?)[\s-]*old", re.IGNORECASE),
    re.compile(r"\bage[\s:=]*(\d{1,3})\b", re.IGNORECASE),
    re.compile(r"\(\s*(\d{1,3})\s*\)"),
)


def timeline_age(timeline: str) -> int | None:
    """The age a timeline label states: "adolescence (14 years old)" (App. L.3),
    "adolescence(age 14)" (the authors' storage files) or "(14)"; the same reading as
    the corpus importer's."""
    for pattern in _AGE_PATTERNS:
        match = pattern.search(timeline)
        if match:
            return int(match.group(1))
    return None


def memory_problems(memory, *, target_age: int) -> list[str]:
    """Every reason a schema-valid memory cannot be stored for this slot ([] if none),
    each naming the field, in words the model can act on."""
    if not isinstance(memory, dict):
        return ["The answer must be one JSON object holding one memory."]
    problems = []
    for name in TEXT_FIELDS:
        value = memory.get(name)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{name} is empty; write it.")
    timeline = memory.get("timeline")
    if isinstance(timeline, str) and timeline.strip():
        stated = timeline_age(timeline)
        if stated is None:
            problems.append(
                f'timeline "{timeline}" states no age; write it as "<life stage> '
                f'({target_age} years old)".'
            )
        elif stated != target_age:
            problems.append(
                f"timeline states age {stated}, but this memory is for age {target_age}; "
                "the episode must happen at the target age."
            )
        if len(timeline) > TIMELINE_MAX_CHARS:
            problems.append(f"timeline is longer than {TIMELINE_MAX_CHARS} characters.")
    with_nul = [n for n, v in memory.items() if has_nul(v)]
    if with_nul:
        problems.append(
            f"{', '.join(with_nul)} contain a NUL character (\\u0000); write plain text."
        )
    full = memory.get("content_full")
    if isinstance(full, str) and len(full) > CONTENT_FULL_MAX_CHARS:
        problems.append(
            f"content_full has {len(full):,} characters; keep it within "
            f"{CONTENT_FULL_MAX_CHARS:,} (about 2,000-4,500 is the aim)."
        )
    for name in ("triggers", "relevance_tags"):
        items = memory.get(name)
        if not isinstance(items, list) or not any(isinstance(i, str) and i.strip() for i in items):
            problems.append(f"{name} is empty; give 4 short items.")
    signature = memory.get("emotion_signature")
    if not isinstance(signature, dict):
        problems.append("emotion_signature is missing.")
    else:
        primary = signature.get("primary")
        if not isinstance(primary, str) or not primary.strip():
            problems.append("emotion_signature.primary is empty; name the main emotion.")
        for key in ("primary", "secondary"):
            value = signature.get(key)
            if isinstance(value, str) and len(value) > EMOTION_MAX_CHARS:
                problems.append(f"emotion_signature.{key} is longer than {EMOTION_MAX_CHARS}.")
        intensity = signature.get("intensity")
        if isinstance(intensity, bool) or not isinstance(intensity, (int, float)):
            problems.append("emotion_signature.intensity must be a number between 0 and 1.")
        elif not 0 <= intensity <= 1:
            problems.append(
                f"emotion_signature.intensity is {intensity}; it must be between 0 and 1."
            )
    return problems
