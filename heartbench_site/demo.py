"""Stand-in character profiles and memories for the one-command demo.

The public release has no character profiles or memories, so the demo writes its own:
one stand-in profile per release character (the eleven trait anchors of seed 000 Table 4,
CHAR_06 with the E .10 / C .70 the paper describes) and a few short memories per
character whose ids are the ones the release's step-2 activation lists point to, each a
varied scene from ``heartbench_site.synthetic_corpus``. Every text says it is a demo
stand-in, and the rows are flagged ``is_demo_standin``.

The output is a characters file in the dataset card's layout, so the demo loads it
through the same importer a lab uses for its real corpus.
"""

import hashlib
import json
from pathlib import Path

from core.life_stages import life_stage_for_age
from heartbench_site import synthetic_corpus

STANDIN = "[Demo stand-in, not from the HEART-Bench release]"

# key: (trait label, construction label, occupation, O, C, E, A, N)
ARCHETYPES = {
    "CHAR_01": (
        "N_HIGH",
        "High-Neuroticism worrier",
        "hospital pharmacist",
        0.55,
        0.60,
        0.40,
        0.55,
        0.95,
    ),
    "CHAR_02": (
        "N_LOW",
        "Low-Neuroticism steady hand",
        "air traffic controller",
        0.50,
        0.65,
        0.55,
        0.50,
        0.10,
    ),
    "CHAR_03": (
        "C_HIGH",
        "High-Conscientiousness planner",
        "structural engineer",
        0.45,
        0.95,
        0.45,
        0.55,
        0.45,
    ),
    "CHAR_04": (
        "C_LOW",
        "Low-Conscientiousness improviser",
        "street musician",
        0.70,
        0.10,
        0.60,
        0.55,
        0.50,
    ),
    "CHAR_05": (
        "E_HIGH",
        "High-Extraversion connector",
        "event producer",
        0.60,
        0.50,
        0.95,
        0.60,
        0.40,
    ),
    "CHAR_06": (
        "E_LOW",
        "Low-Extraversion quiet specialist",
        "archive cataloguer",
        0.55,
        0.70,
        0.10,
        0.50,
        0.50,
    ),
    "CHAR_07": (
        "A_HIGH",
        "High-Agreeableness mediator",
        "family mediator",
        0.55,
        0.55,
        0.55,
        0.95,
        0.45,
    ),
    "CHAR_08": (
        "A_LOW",
        "Low-Agreeableness hard bargainer",
        "procurement negotiator",
        0.50,
        0.65,
        0.55,
        0.10,
        0.40,
    ),
    "CHAR_09": (
        "O_HIGH",
        "High-Openness explorer",
        "installation artist",
        0.95,
        0.40,
        0.55,
        0.55,
        0.50,
    ),
    "CHAR_10": (
        "O_LOW",
        "Low-Openness traditionalist",
        "bakery owner",
        0.10,
        0.65,
        0.45,
        0.55,
        0.45,
    ),
    "CHAR_11": (
        "NEUTRAL",
        "All-neutral baseline",
        "office administrator",
        0.50,
        0.50,
        0.50,
        0.50,
        0.50,
    ),
}

TRAIT_WORDS = {
    "N": ("worry", "calm"),
    "C": ("order", "spontaneity"),
    "E": ("company", "solitude"),
    "A": ("harmony", "self-interest"),
    "O": ("novelty", "tradition"),
}

PATTERN_TEMPLATES = (
    "Notices {w} first when a situation changes.",
    "Decides quickly when {w} is at stake and slowly otherwise.",
    "Explains choices to others in terms of {w}.",
    "Seeks {w} after a setback.",
    "Turns down offers that threaten {w}.",
    "Remembers past episodes of {w} in detail.",
    "Keeps commitments that protect {w}, lets others slide.",
    "Shows strain through small routines when {w} is missing.",
)

MEMORIES_PER_CHARACTER = 24


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _trait_word(label: str) -> str:
    if label == "NEUTRAL":
        return "balance"
    high, low = TRAIT_WORDS[label[0]]
    return high if label.endswith("HIGH") else low


def _profile(key: str) -> dict:
    label, name, occupation, o, c, e, a, n = ARCHETYPES[key]
    word = _trait_word(label)
    return {
        "id": key,
        "name": f"{name} {STANDIN}",
        "occupation": occupation,
        "big_five": {"O": o, "C": c, "E": e, "A": a, "N": n},
        "description": (
            f"{STANDIN} {_article(occupation).capitalize()} {occupation} "
            f"whose life is organised around {word}. "
            "Written for the demo so reviewers can try the workflows."
        ),
        "self_value_logic": f"{STANDIN} I am at my best when {word} is protected.",
        "core_patterns": [t.format(w=word) for t in PATTERN_TEMPLATES],
    }


def _stable_int(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def _memory(memory_id: str, age: int) -> dict:
    """A realistic stand-in scene (``heartbench_site.synthetic_corpus``): its tier, domain
    and sentences vary per memory, the same for the same id on every run."""
    return synthetic_corpus.memory(memory_id, age, label=STANDIN)


def standin_characters(release_dir: Path) -> list[dict]:
    """Stand-in profiles with memories whose ids the step-2 activation lists reference.

    A memory's event age is at or before the youngest scenario age that activates it, so
    the demo respects the eligibility rule of seed 000 App. H.
    """
    step2 = json.loads((release_dir / "activated_memories_step2.json").read_text("utf-8"))
    youngest: dict[str, dict[str, int]] = {}
    for key, by_scenario in step2["annotations"].items():
        ages = youngest.setdefault(key, {})
        for record in by_scenario.values():
            for item in record["activated_memories"]:
                mid = item["memory_id"]
                ages[mid] = min(ages.get(mid, 99), int(record["scenario_age"]))

    characters = []
    for key in ARCHETYPES:
        profile = _profile(key)
        ages = {
            mid: max(6, youngest_age - _stable_int(mid) % 4)
            for mid, youngest_age in youngest.get(key, {}).items()
        }
        chosen = _spread_over_stages(ages)
        profile["episodic_memory_set"] = [_memory(mid, ages[mid]) for mid in chosen]
        characters.append(profile)
    return characters


def _spread_over_stages(ages: dict[str, int]) -> list[str]:
    """Up to MEMORIES_PER_CHARACTER ids, taken round-robin over the life stages so every
    stage the activation lists reach has some memories; returned in timeline order."""
    by_stage: dict[str, list[str]] = {}
    for mid in sorted(ages):
        by_stage.setdefault(life_stage_for_age(ages[mid]).key, []).append(mid)
    chosen: list[str] = []
    queues = list(by_stage.values())
    while queues and len(chosen) < MEMORIES_PER_CHARACTER:
        for queue in queues:
            if queue and len(chosen) < MEMORIES_PER_CHARACTER:
                chosen.append(queue.pop(0))
        queues = [q for q in queues if q]
    return sorted(chosen, key=lambda mid: (ages[mid], mid))
