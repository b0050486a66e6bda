"""The drafting design: which characters to draft, with which Big Five requirements (seed
000 §2.2 Stage 1, App. B.1/B.2, Table 4). Pure: no Django, so its tests run without a
database and the demo provider can read the same rules.

The paper's trait-anchored coverage: one high (0.95) and one low (0.10) anchor per OCEAN
trait, the other four scores moderate (the suggested 0.30-0.70 range, chosen by the
model), plus the all-neutral reference whose vector is fixed at 0.50 and never drafted by
the model. The keys follow the release's memory ids (``MEM_CHAR_01_N_HIGH_...`` through
``MEM_CHAR_11_NEUTRAL_...``): N, C, E, A, O, each high then low, then the neutral one.

A custom design gives each character its own requirement, one line per character:

    CHAR_12: E low            the anchor; the model chooses the other four scores
    CHAR_13: neutral          the all-0.50 reference
    CHAR_14: O=0.95 C=0.40 E=0.55 A=0.60 N=0.35
                              a whole vector, fixed like the neutral one's
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

TRAITS = ("O", "C", "E", "A", "N")
TRAIT_NAMES = {
    "O": "Openness",
    "C": "Conscientiousness",
    "E": "Extraversion",
    "A": "Agreeableness",
    "N": "Neuroticism",
}

#: App. B.1/B.2: the high anchor, the low anchor and the neutral reference score.
HIGH_ANCHOR = 0.95
LOW_ANCHOR = 0.10
NEUTRAL_SCORE = 0.50
#: App. B.2 / L.2: the suggested range of the non-anchor scores. Review may keep a score
#: outside it when the profile is coherent (App. B.3), so drafting only warns.
MODERATE_RANGE = (0.30, 0.70)
#: A non-anchor score this far out reads as a second extreme: ``ProfileVersion.trait_anchor``
#: could no longer name the defining trait, so drafting refuses it.
SECOND_EXTREME = (0.15, 0.90)

POLES = ("high", "low")
NEUTRAL = "neutral"

#: Table 4's order, as the release's memory ids number the characters.
TABLE4_ORDER = (
    ("N", "high"),
    ("N", "low"),
    ("C", "high"),
    ("C", "low"),
    ("E", "high"),
    ("E", "low"),
    ("A", "high"),
    ("A", "low"),
    ("O", "high"),
    ("O", "low"),
    (NEUTRAL, NEUTRAL),
)
CHARACTER_KEY = re.compile(r"^CHAR_\d{2}$")


class DesignError(ValueError):
    """A design line that cannot be read; the message names the line and what is wrong."""


@dataclass(frozen=True)
class PlannedCharacter:
    """What one draft must respect.

    ``required`` are the scores the design sets (the anchor alone, or the whole vector);
    ``vector_fixed`` means the design owns all five scores: whatever the model returns
    for them is replaced by ``required`` (the neutral reference, a custom vector).
    """

    char_key: str
    anchor_trait: str  # "N", or "" for the neutral reference
    pole: str  # "high" | "low" | "neutral"
    required: dict[str, float] = field(default_factory=dict)
    vector_fixed: bool = False

    @property
    def anchor(self) -> str:
        """As ``ProfileVersion.trait_anchor`` says it: "N high", "neutral (all 0.50)"."""
        if self.pole == NEUTRAL:
            return "neutral (all 0.50)"
        return f"{self.anchor_trait} {self.pole}"

    @property
    def construction_hint(self) -> str:
        """The archetype in the release's label form: "N_HIGH", "NEUTRAL"."""
        if self.pole == NEUTRAL:
            return "NEUTRAL"
        return f"{self.anchor_trait}_{self.pole.upper()}"

    @property
    def free_traits(self) -> tuple[str, ...]:
        return tuple(t for t in TRAITS if t not in self.required)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> PlannedCharacter:
        return cls(
            char_key=data["char_key"],
            anchor_trait=data.get("anchor_trait", ""),
            pole=data["pole"],
            required={k: float(v) for k, v in (data.get("required") or {}).items()},
            vector_fixed=bool(data.get("vector_fixed")),
        )


def anchored(char_key: str, trait: str, pole: str) -> PlannedCharacter:
    score = HIGH_ANCHOR if pole == "high" else LOW_ANCHOR
    return PlannedCharacter(
        char_key=char_key, anchor_trait=trait, pole=pole, required={trait: score}
    )


def neutral(char_key: str) -> PlannedCharacter:
    return PlannedCharacter(
        char_key=char_key,
        anchor_trait="",
        pole=NEUTRAL,
        required=dict.fromkeys(TRAITS, NEUTRAL_SCORE),
        vector_fixed=True,
    )


def fixed_vector(char_key: str, vector: dict[str, float]) -> PlannedCharacter:
    """A whole vector typed by the admin. Its anchor is its one extreme score, if any."""
    if all(math.isclose(vector[t], NEUTRAL_SCORE) for t in TRAITS):
        return neutral(char_key)
    extremes = [
        t for t in TRAITS if vector[t] >= SECOND_EXTREME[1] or vector[t] <= SECOND_EXTREME[0]
    ]
    if len(extremes) != 1:
        raise DesignError(
            f"{char_key}: a fixed vector needs exactly one extreme score (≥ {SECOND_EXTREME[1]} "
            f"or ≤ {SECOND_EXTREME[0]}) to define the character, or all five at 0.50; "
            f"this one has {len(extremes)} ({', '.join(extremes) or 'none'})."
        )
    trait = extremes[0]
    return PlannedCharacter(
        char_key=char_key,
        anchor_trait=trait,
        pole="high" if vector[trait] >= SECOND_EXTREME[1] else "low",
        required={t: float(vector[t]) for t in TRAITS},
        vector_fixed=True,
    )


def table4_plan(first_number: int = 1) -> list[PlannedCharacter]:
    """The eleven characters of Table 4, keyed CHAR_01.. in the release's order."""
    plan = []
    for offset, (trait, pole) in enumerate(TABLE4_ORDER):
        key = f"CHAR_{first_number + offset:02d}"
        plan.append(neutral(key) if pole == NEUTRAL else anchored(key, trait, pole))
    return plan


_SCORE = re.compile(r"\b([OCEAN])\s*=\s*([0-9]*\.?[0-9]+)")


def parse_custom_line(line: str, number: int) -> PlannedCharacter:
    where = f"Line {number} ({line.strip()!r})"
    if ":" not in line:
        raise DesignError(
            f"{where}: write the key, a colon, then the requirement, e.g. 'CHAR_12: E low'."
        )
    key, _, spec = (part.strip() for part in line.partition(":"))
    key = key.upper()
    if not CHARACTER_KEY.match(key):
        raise DesignError(f"{where}: {key!r} is not a character key; keys look like CHAR_12.")
    words = spec.split()
    if [w.lower() for w in words] == [NEUTRAL]:
        return neutral(key)
    if len(words) == 2 and words[0].upper() in TRAITS and words[1].lower() in POLES:
        return anchored(key, words[0].upper(), words[1].lower())
    scores = dict(_SCORE.findall(spec.upper()))
    if scores:
        if set(scores) != set(TRAITS) or len(_SCORE.findall(spec.upper())) != 5:
            raise DesignError(
                f"{where}: a vector gives each of O, C, E, A, N once, e.g. "
                "'O=0.95 C=0.40 E=0.55 A=0.60 N=0.35'."
            )
        vector = {t: float(v) for t, v in scores.items()}
        bad = [t for t, v in vector.items() if not 0.0 <= v <= 1.0]
        if bad:
            raise DesignError(f"{where}: scores lie between 0 and 1 ({', '.join(bad)} do not).")
        try:
            return fixed_vector(key, vector)
        except DesignError as error:
            raise DesignError(f"{where}: {error}") from None
    raise DesignError(
        f"{where}: say 'E low' (an anchor: a trait letter and high or low), 'neutral', or a "
        "whole vector 'O=.. C=.. E=.. A=.. N=..'."
    )


def parse_custom_design(text: str) -> list[PlannedCharacter]:
    """One planned character per non-empty line; every problem found is raised at once."""
    plan, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            plan.append(parse_custom_line(line, number))
        except DesignError as error:
            problems.append(str(error))
    keys = [p.char_key for p in plan]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        problems.append(f"Each key once: {', '.join(repeated)} appear more than once.")
    if problems:
        raise DesignError("\n".join(problems))
    if not plan:
        raise DesignError("The custom design is empty: write one line per character.")
    return plan


def vector_text(scores: dict[str, float]) -> str:
    return ", ".join(f"{t}={scores[t]:.2f}" for t in TRAITS if t in scores)


def design_brief(planned: PlannedCharacter) -> str:
    """The per-character requirement block of the user prompt (``{design_brief}``). Its
    "Character key:" and "Required scores:" lines are read by the demo provider too."""
    low, high = MODERATE_RANGE
    lines = [
        f"Character key: {planned.char_key}",
        f"Required scores: {vector_text(planned.required)}",
    ]
    if planned.pole == NEUTRAL:
        lines += [
            "This is the all-neutral reference character: every score is fixed at 0.50 by "
            "the design and is not yours to choose; copy the five scores exactly.",
            "There is no defining trait. Build the persona around attentive observation and "
            "adapting to each situation as it comes; choose an occupation that suits such a "
            "person, and write the eight patterns as observable habits of that kind.",
        ]
        return "\n".join(lines)
    if not planned.anchor_trait:
        lines.append(
            "No single trait defines this character: the design fixes all five scores; "
            "copy them exactly."
        )
        return "\n".join(lines)
    trait, name = planned.anchor_trait, TRAIT_NAMES[planned.anchor_trait]
    score = planned.required[trait]
    lines.append(
        f"Defining trait: {name} ({trait}), {planned.pole} pole, scored exactly {score:.2f}."
    )
    if planned.vector_fixed:
        lines.append("The design fixes all five scores: copy them exactly as given.")
    else:
        free = ", ".join(planned.free_traits)
        lines.append(
            f"Choose the other scores ({free}) yourself, each between {low:.2f} and {high:.2f}."
        )
    return "\n".join(lines)
