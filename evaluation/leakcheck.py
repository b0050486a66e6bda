"""The check run on every evaluation prompt before it is sent (seed 000 App. E).

A prompt is refused when it contains any withheld field: the personality-and-value
profile outside the disclosed settings, the construction label (always), the memories'
construction-time psychological annotations, another character's id, the key or
provenance. The caller lists what is withheld for the item (``Withheld``); this module
only looks. Pure Python: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Shorter withheld strings ("fear", "rain") would match ordinary narrative by chance.
MIN_WITHHELD_CHARS = 12

_CHARACTER_ID = re.compile(r"(?<![A-Za-z0-9])CHAR_(\d{2,})(?![0-9])")
#: Names of key/provenance fields: a prompt quoting one was serialized from a record.
KEY_FIELD_NAMES = (
    "is_correct",
    "correct_answer",
    "answer key",
    "source_character",
    "source_reference",
    "source_family",
    "construction_label",
    "psych_conclusion",
    "behavior_policy",
    "content_summary",
    "relevance_tags",
    "emotion_signature",
)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Withheld:
    """A field value that must not appear: ``what`` names it for the refusal record."""

    what: str
    text: str


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def find_leaks(prompt: str, *, character_id: str, withheld: list[Withheld]) -> list[str]:
    """Reasons the prompt must not be sent; empty when it is clean."""
    reasons: list[str] = []
    haystack = _norm(prompt)
    for field in withheld:
        needle = _norm(field.text or "")
        if len(needle) >= MIN_WITHHELD_CHARS and needle in haystack:
            reasons.append(f"contains {field.what}: {field.text.strip()[:80]!r}")
    own = character_id.removeprefix("CHAR_")
    others = sorted({m for m in _CHARACTER_ID.findall(prompt) if m != own})
    if others:
        reasons.append("contains another character's id: " + ", ".join(f"CHAR_{n}" for n in others))
    lowered = prompt.casefold()
    for name in KEY_FIELD_NAMES:
        if name in lowered:
            reasons.append(
                f"contains the withheld field name {name!r} (key, provenance or annotation)"
            )
    return reasons
