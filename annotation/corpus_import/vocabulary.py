"""Identifier syntax and controlled vocabularies of the corpus (seed 000 App. B.1, B.6-B.7,
C.1-C.2, D.1), in one place for every parser."""

import re

from core.life_stages import (
    BY_KEY,
    FIRST_AGE,
    LAST_AGE,
    LIFE_STAGE_KEYS,
    life_stage_for_age,
)

CHARACTER_KEY = re.compile(r"^CHAR_\d{2}$")
SCENARIO_ID = re.compile(r"^SCN_[A-Z0-9_]+_\d+$")

# The trait label inside a memory id: one high and one low anchor per Big Five dimension,
# plus the all-.50 reference character (App. B.1).
TRAIT_LABELS = (
    "N_HIGH",
    "N_LOW",
    "C_HIGH",
    "C_LOW",
    "E_HIGH",
    "E_LOW",
    "A_HIGH",
    "A_LOW",
    "O_HIGH",
    "O_LOW",
    "NEUTRAL",
)
MEMORY_ID = re.compile(
    r"^MEM_(?P<char>CHAR_\d{2})_(?P<label>" + "|".join(TRAIT_LABELS) + r")_(?P<seq>\d{4})$"
)
# The authors' incremental storage files name a memory without its label (App. B.5).
SHORT_MEMORY_ID = re.compile(r"^MEM_(?P<num>\d{2})_(?P<seq>\d{3,4})$")

BIG_FIVE_NAMES = {
    "O": "openness",
    "C": "conscientiousness",
    "E": "extraversion",
    "A": "agreeableness",
    "N": "neuroticism",
}

# App. C.2, Table 12: Duty, Intellect, Adversity, Mating, pOsitivity, Negativity,
# Deception, Sociality.
DIAMONDS_DIMENSIONS = (
    "Duty",
    "Intellect",
    "Adversity",
    "Mating",
    "Positivity",
    "Negativity",
    "Deception",
    "Sociality",
)

MCQ_OPTION_LABELS = ("A", "B", "C", "D")

MEMORY_ID_HINT = (
    "must look like MEM_CHAR_03_C_HIGH_0002 (MEM_<character>_<trait label>_<four digits>, "
    f"trait label one of {', '.join(TRAIT_LABELS)})"
)

_AGE_PATTERNS = (
    re.compile(r"(\d{1,3})\s*(?:-\s*)?(?:years?|yrs?)[\s-]*old", re.IGNORECASE),
    re.compile(r"\bage[\s:=]*(\d{1,3})\b", re.IGNORECASE),
    re.compile(r"\(\s*(\d{1,3})\s*\)"),
)


def anonymized_memory_id(character_key: str, sequence: int) -> str:
    """The id shown in model- and participant-facing text: the trait label removed."""
    return f"MEM_{character_key}_{sequence:04d}"


def full_memory_id(character_key: str, label: str, sequence: int) -> str:
    return f"MEM_{character_key}_{label}_{sequence:04d}"


def age_from_timeline(timeline: str) -> int | None:
    """The event age in a timeline label: "childhood (7 years old)" (App. L.3),
    "childhood(age 7)" (the authors' storage files) or "(7)"."""
    for pattern in _AGE_PATTERNS:
        match = pattern.search(timeline)
        if match:
            return int(match.group(1))
    return None


def age_problem(age: int) -> str | None:
    if not FIRST_AGE <= age <= LAST_AGE:
        return f"event age {age} is outside the benchmark's life span ({FIRST_AGE}-{LAST_AGE})"
    return None


def stage_for_age(age: int) -> str:
    return life_stage_for_age(age).key


def stage_problem(stage) -> str | None:
    if stage not in LIFE_STAGE_KEYS:
        bins = ", ".join(LIFE_STAGE_KEYS)
        return f"must be one of the eight life-stage bins ({bins}), got {stage!r}"
    return None


def bin_age_problem(stage: str, age: int) -> str | None:
    b = BY_KEY[stage]
    if not b.contains(age):
        return f"age {age} is outside the {stage} bin (ages {b.first_age}-{b.last_age})"
    return None


def label_for_anchor(anchor: str) -> str | None:
    """ProfileVersion.trait_anchor ("N high", "neutral (all 0.50)") as a memory-id label."""
    if anchor.startswith("neutral"):
        return "NEUTRAL"
    parts = anchor.split()
    if len(parts) == 2 and parts[0] in BIG_FIVE_NAMES and parts[1] in ("high", "low"):
        return f"{parts[0]}_{parts[1].upper()}"
    return None


# The model names of history/d81be18/ground_truth.json's pairwise_analysis
# (seed 000 App. D.1: Claude-Sonnet-4.6, GPT-5.4, Gemini-3.1-Pro) and their families.
# Provenance only: the family of a candidate never reaches annotator-facing code.
IMPORTED_MODEL_FAMILIES = {
    "claude-sonnet-4-6": "claude",
    "gpt-5_4": "gpt",
    "gemini-3_1-pro-preview": "gemini",
}
