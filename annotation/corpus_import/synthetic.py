"""A deterministic synthetic corpus in the dataset card's layout, for benchmarks and
tests (and any demo that needs characters the release does not publish).

Everything it writes is a labelled stand-in (``is_demo_standin``): the authors'
profiles and memories are not in the public release. The scale defaults are the
paper's (App. B.8): 11 characters × 1,000 memories, mean narrative ~3,300 characters.
"""

import json
import random

from annotation.corpus_import.vocabulary import BIG_FIVE_NAMES, stage_for_age
from core.life_stages import FIRST_AGE, LAST_AGE
from core.protocol import PROTOCOL_SEED

# The release's character-to-anchor assignment, as its activation ids show.
ANCHORS = (
    ("CHAR_01", "N_HIGH"),
    ("CHAR_02", "N_LOW"),
    ("CHAR_03", "C_HIGH"),
    ("CHAR_04", "C_LOW"),
    ("CHAR_05", "E_HIGH"),
    ("CHAR_06", "E_LOW"),
    ("CHAR_07", "A_HIGH"),
    ("CHAR_08", "A_LOW"),
    ("CHAR_09", "O_HIGH"),
    ("CHAR_10", "O_LOW"),
    ("CHAR_11", "NEUTRAL"),
)
_OCCUPATIONS = (
    "archive conservator",
    "emergency dispatcher",
    "orchestra librarian",
    "municipal surveyor",
    "pastry chef",
    "ferry mechanic",
    "school counsellor",
    "patent examiner",
    "stage lighting designer",
    "field ecologist",
    "hospital pharmacist",
)
_WORDS = (
    "rain window kitchen bus teacher notebook lamp corridor mother father sister friend "
    "office meeting deadline phone message silence laughter door stairs market bicycle "
    "coffee letter garden station river bridge classroom exam trophy stage microphone "
    "neighbour dog umbrella train ticket jacket hands heartbeat breath shoulders stomach "
    "evening morning night weekend promise mistake apology secret gift argument smile"
).split()
_EMOTIONS = ("fear", "joy", "shame", "pride", "anger", "relief", "sadness", "curiosity")
_STAGE_WORDS = ("childhood", "adolescence", "college", "early career", "growth", "settled")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 18))]
    words[0] = words[0].capitalize()
    if rng.random() < 0.3:
        return f'"{" ".join(words)}," I said.'
    return " ".join(words) + "."


def _profile(rng: random.Random, key: str, label: str, index: int) -> dict:
    if label == "NEUTRAL":
        scores = dict.fromkeys(BIG_FIVE_NAMES, 0.5)
    else:
        dim, pole = label.split("_")
        scores = {d: round(rng.uniform(0.3, 0.7), 2) for d in BIG_FIVE_NAMES}
        scores[dim] = 0.95 if pole == "HIGH" else 0.10
    return {
        "id": key,
        "name": f"Stand-in {label.replace('_', ' ').title()} archetype",
        "occupation": _OCCUPATIONS[index % len(_OCCUPATIONS)],
        "big_five": scores,
        "description": f"A synthetic stand-in anchored on {label}; not the authors' profile.",
        "self_value_logic": "If I keep to what I know of myself, the situation stays manageable.",
        "core_patterns": [
            f"pattern {i}: a concrete, observable habit number {i}" for i in range(1, 9)
        ],
        "is_demo_standin": True,
    }


def _memory(rng: random.Random, key: str, label: str, seq: int, count: int, pool, chars: int):
    age = FIRST_AGE + (seq - 1) * (LAST_AGE - FIRST_AGE + 1) // count
    target = max(40, rng.randint(int(chars * 0.6), int(chars * 1.4)))
    parts, length = [], 0
    while length < target:
        sentence = rng.choice(pool)
        parts.append(sentence)
        length += len(sentence) + 1
    a, b = rng.choice(_WORDS), rng.choice(_WORDS)
    stage_word = _STAGE_WORDS[min(len(_STAGE_WORDS) - 1, (age - FIRST_AGE) // 8)]
    return {
        "id": f"MEM_{key}_{label}_{seq:04d}",
        "timeline": f"{stage_word} ({age} years old)",
        "context": f"A {a} and a {b} in the {stage_for_age(age)} years.",
        "content_summary": f"I remember the {b} and what I did about the {a}.",
        "content_full": " ".join(parts),
        "triggers": rng.sample(_WORDS, 4),
        "psych_conclusion": "An ordinary episode that reinforced a familiar way of coping.",
        "behavior_policy": "Prepare in advance and check what others expect.",
        "emotion_signature": {
            "primary": rng.choice(_EMOTIONS),
            "secondary": rng.choice(_EMOTIONS),
            "intensity": round(rng.uniform(0.15, 0.95), 2),
        },
        "relevance_tags": rng.sample(_WORDS, 4),
    }


def synthetic_characters(
    *,
    characters: int = 11,
    memories_per_character: int = 1000,
    content_chars: int = 3300,
    seed: int = PROTOCOL_SEED,
) -> list[dict]:
    rng = random.Random(seed)
    pool = [_sentence(rng) for _ in range(500)]
    out = []
    for index, (key, label) in enumerate(ANCHORS[:characters]):
        profile = _profile(rng, key, label, index)
        profile["episodic_memory_set"] = [
            _memory(rng, key, label, seq, memories_per_character, pool, content_chars)
            for seq in range(1, memories_per_character + 1)
        ]
        out.append(profile)
    return out


def synthetic_characters_json(**kwargs) -> bytes:
    return json.dumps({"characters": synthetic_characters(**kwargs)}, ensure_ascii=False).encode()
