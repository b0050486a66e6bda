"""The drafted profile's JSON schema (App. L.2's output format) and the checks a schema
cannot express (App. B.1/B.2). Pure: no Django.

``check_profile`` sorts what is wrong into

- problems: the draft cannot become a profile version; the model is asked again with
  each problem named, and a draft still wrong after the last attempt is reported;
- warnings: kept with the draft for the reviewers (a non-anchor score outside the
  suggested 0.30-0.70, which App. B.3 lets review keep when the profile is coherent; a
  description that is not two or three sentences; a fixed score the model changed and
  the design put back).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from annotation.character_drafting.design import (
    MODERATE_RANGE,
    SECOND_EXTREME,
    TRAITS,
    PlannedCharacter,
    vector_text,
)
from llm.structured import has_nul

#: App. B.1: exactly eight core behavioral patterns.
CORE_PATTERN_COUNT = 8
#: App. L.2: the description has two or three sentences; the self-value logic one.
DESCRIPTION_SENTENCES = (2, 3)
LABEL_MAX = 200  # ProfileVersion.construction_label
OCCUPATION_MAX = 300  # ProfileVersion.occupation

_score = {"type": "number", "minimum": 0.0, "maximum": 1.0}
_text = {"type": "string", "minLength": 1}

PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "char_key",
        "name",
        "occupation",
        "big_five",
        "big_five_str",
        "description",
        "self_value_logic",
        "core_patterns",
    ],
    "properties": {
        "char_key": {"type": "string", "pattern": r"^CHAR_\d{2}$"},
        "name": {"type": "string", "minLength": 1, "maxLength": LABEL_MAX},
        "occupation": {"type": "string", "minLength": 1, "maxLength": OCCUPATION_MAX},
        "big_five": {
            "type": "object",
            "additionalProperties": False,
            "required": list(TRAITS),
            "properties": dict.fromkeys(TRAITS, _score),
        },
        "big_five_str": _text,
        "description": _text,
        "self_value_logic": _text,
        "core_patterns": {
            "type": "array",
            "minItems": CORE_PATTERN_COUNT,
            "maxItems": CORE_PATTERN_COUNT,
            "items": _text,
        },
    },
}

_SENTENCE_END = re.compile(r"[.!?]+(?:[\"'”’)]*)(?=\s|$)")
_STR_SCORE = re.compile(r"\b([OCEAN])\s*[=:]\s*([0-9]*\.?[0-9]+)")
_PATTERN_PREFIX = re.compile(r"^\s*(?:pattern\s*)?\d+\s*[:.)-]\s*", re.IGNORECASE)


def sentence_count(text: str) -> int:
    return len(_SENTENCE_END.findall(text.strip())) or (1 if text.strip() else 0)


def pattern_core(text: str) -> str:
    """A pattern without its "pattern 3:" numbering, folded for comparing."""
    return " ".join(_PATTERN_PREFIX.sub("", text).lower().split())


@dataclass
class ProfileCheck:
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The ProfileVersion fields the draft gives (after a fixed vector is put back).
    values: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_profile(profile: dict, planned: PlannedCharacter) -> ProfileCheck:
    """Check a schema-valid draft against its design. See the module docstring."""
    out = ProfileCheck()
    if profile["char_key"] != planned.char_key:
        out.problems.append(
            f"char_key must be {planned.char_key} (the character asked for), "
            f"not {profile['char_key']}."
        )
    scores = {t: float(profile["big_five"][t]) for t in TRAITS}
    if planned.vector_fixed:
        changed = [t for t in TRAITS if not math.isclose(scores[t], planned.required[t])]
        if changed:
            out.warnings.append(
                f"The model returned {vector_text(scores)}; the design fixes "
                f"{vector_text(planned.required)}, which the draft keeps."
            )
        scores = dict(planned.required)
    else:
        _check_scores(scores, planned, out)
        stated = dict(_STR_SCORE.findall(profile["big_five_str"].upper()))
        disagree = [
            t
            for t in TRAITS
            if t not in stated or not math.isclose(float(stated[t]), scores[t], abs_tol=0.005)
        ]
        if disagree:
            out.problems.append(
                "big_five_str must state the same five scores as big_five "
                f"({vector_text(scores)}); "
                f"it disagrees on {', '.join(disagree)}."
            )
    patterns = [str(p).strip() for p in profile["core_patterns"]]
    empty = [i for i, p in enumerate(patterns, start=1) if not pattern_core(p)]
    if empty:
        out.problems.append(
            f"core_patterns {', '.join(map(str, empty))} say nothing: every pattern needs "
            "a behavior."
        )
    folded = [pattern_core(p) for p in patterns]
    repeated = sorted({i for i, p in enumerate(folded, start=1) if p and folded.count(p) > 1})
    if repeated:
        out.problems.append(
            f"core_patterns {', '.join(map(str, repeated))} repeat one another: write "
            f"{CORE_PATTERN_COUNT} distinct observable behaviors."
        )
    for name in ("name", "occupation", "description", "self_value_logic"):
        if not str(profile[name]).strip():
            out.problems.append(f"{name} is empty.")
    with_nul = [n for n, v in profile.items() if has_nul(v)]
    if with_nul:
        out.problems.append(
            f"{', '.join(with_nul)} contain a NUL character (\\u0000); write plain text."
        )
    low, high = DESCRIPTION_SENTENCES
    sentences = sentence_count(profile["description"])
    if not low <= sentences <= high:
        out.warnings.append(
            f"The description has {sentences} sentences; the prompt asks for {low}-{high}."
        )
    if sentence_count(profile["self_value_logic"]) > 1:
        out.warnings.append(
            "The self-value logic has more than one sentence; the prompt asks for one."
        )
    out.values = {
        "construction_label": str(profile["name"]).strip(),
        "occupation": str(profile["occupation"]).strip(),
        "openness": scores["O"],
        "conscientiousness": scores["C"],
        "extraversion": scores["E"],
        "agreeableness": scores["A"],
        "neuroticism": scores["N"],
        "description": str(profile["description"]).strip(),
        "self_value_logic": str(profile["self_value_logic"]).strip(),
        "core_patterns": patterns,
    }
    return out


def _check_scores(scores: dict[str, float], planned: PlannedCharacter, out: ProfileCheck) -> None:
    for trait, required in planned.required.items():
        if not math.isclose(scores[trait], required):
            out.problems.append(
                f"big_five.{trait} must be exactly {required:.2f} (the design's "
                f"{planned.pole} anchor), not {scores[trait]:g}."
            )
    low, high = MODERATE_RANGE
    for trait in planned.free_traits:
        value = scores[trait]
        if value <= SECOND_EXTREME[0] or value >= SECOND_EXTREME[1]:
            out.problems.append(
                f"big_five.{trait} = {value:g} is a second extreme; only the defining trait "
                f"is extreme, keep {trait} between {low:.2f} and {high:.2f}."
            )
        elif not low <= value <= high:
            out.warnings.append(
                f"big_five.{trait} = {value:g} lies outside the suggested {low:.2f}-{high:.2f}; "
                "review may keep it if the profile is coherent (App. B.3)."
            )


def profile_as_json(values: dict, char_key: str) -> dict:
    """A stored profile (ProfileVersion fields) in the drafting output's shape, for a
    redraft prompt and for the draft page."""
    scores = {
        "O": values["openness"],
        "C": values["conscientiousness"],
        "E": values["extraversion"],
        "A": values["agreeableness"],
        "N": values["neuroticism"],
    }
    return {
        "char_key": char_key,
        "name": values["construction_label"],
        "occupation": values["occupation"],
        "big_five": scores,
        "big_five_str": vector_text(scores),
        "description": values["description"],
        "self_value_logic": values["self_value_logic"],
        "core_patterns": list(values["core_patterns"]),
    }
