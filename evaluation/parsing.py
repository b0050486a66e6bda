"""Reading the answer out of a model response (seed 000 App. L.1, "Output parsing").

Only ``decision_choice`` is graded, normalized to A-D. When the reply is not JSON, an
explicitly named ``decision_choice`` is recovered from the raw text; otherwise, and for
refusals, there is no answer (counted incorrect). The rationale fields and
``final_decision`` are kept for inspection and never read for an answer.
Pure Python: no Django.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

LETTERS = ("A", "B", "C", "D")

JSON = "json"
RAW_TEXT = "raw_text"
INVALID = "invalid"
REFUSAL = "refusal"

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)
# "A", "a", "A.", "(B)", "Option C", "C. I stay home": a letter standing alone first.
_LETTER = re.compile(r"^\s*(?:option\s*)?[(\[]?\s*([A-D])\s*[)\]]?(?=$|[\s.:,;)\-])", re.I)
# The field named explicitly in broken JSON or prose: decision_choice: "B" / = B / is B.
_NAMED = re.compile(
    r"""["']?decision_choice["']?\s*(?::|=|is)\s*["']?\s*(?:option\s*)?[(\[]?([A-Da-d])\b""",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    choice: str | None
    path: str
    parsed: Any = None
    note: str = ""


def normalize_choice(value: Any) -> str | None:
    """``decision_choice`` as one of A-D, or None when it names no single option."""
    if not isinstance(value, str):
        return None
    match = _LETTER.match(value.strip().strip("\"'"))
    return match.group(1).upper() if match else None


def _load_json(text: str) -> Any:
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        return json.loads(body)
    except ValueError:
        pass
    # A JSON object wrapped in prose: take the outermost braces.
    start, end = body.find("{"), body.rfind("}")
    if 0 <= start < end:
        try:
            return json.loads(body[start : end + 1])
        except ValueError:
            pass
    raise ValueError("not JSON")


def parse_response(text: str | None, *, refused: bool = False) -> ParsedAnswer:
    """The graded answer of one reply. ``refused``: the provider reported a refusal."""
    if refused:
        return ParsedAnswer(None, REFUSAL, note="the model refused")
    text = text or ""
    try:
        data = _load_json(text)
    except ValueError:
        data = None
    else:
        if not isinstance(data, dict):
            return ParsedAnswer(None, INVALID, data, "the reply is JSON but not an object")
        if "decision_choice" not in data:
            return ParsedAnswer(None, INVALID, data, "the reply has no decision_choice")
        choice = normalize_choice(data["decision_choice"])
        if choice is None:
            return ParsedAnswer(
                None,
                INVALID,
                data,
                f"decision_choice {str(data['decision_choice'])[:40]!r} names no option A-D",
            )
        return ParsedAnswer(choice, JSON, data)
    named = {m.upper() for m in _NAMED.findall(text)}
    if len(named) == 1:
        return ParsedAnswer(named.pop(), RAW_TEXT, note="recovered decision_choice from raw text")
    if len(named) > 1:
        return ParsedAnswer(
            None, INVALID, note=f"raw text names several choices: {', '.join(sorted(named))}"
        )
    return ParsedAnswer(None, INVALID, note="no JSON and no decision_choice in the raw text")


def without_nul(value: Any) -> Any:
    """``value`` with every NUL character replaced (U+FFFD), in strings, lists and dict
    keys and values: PostgreSQL text and JSON cannot store NUL, and a response may hold one."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    if isinstance(value, dict):
        return {without_nul(str(k)): without_nul(v) for k, v in value.items()}
    return value
