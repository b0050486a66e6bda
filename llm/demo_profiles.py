"""The demo answer to a character-drafting prompt (seed 000 App. L.2): a complete profile
in the drafting schema, labelled as demo text.

It honours the request: the character key and the required scores are read from the
prompt's "Character key:" and "Required scores:" lines (the block the drafting design
writes), the other scores are drawn from the moderate 0.30-0.70 range, and the
occupation and the eight patterns fit the defining trait. Drawn from the prompt's seeded
generator, so the same seed, model and prompt give the same profile and another seed or
model another one.
"""

from __future__ import annotations

import re
from typing import Any

from .demo_material import DEMO_LABEL, labelled_line

TRAITS = ("O", "C", "E", "A", "N")
NAMES = {
    "O": "Openness",
    "C": "Conscientiousness",
    "E": "Extraversion",
    "A": "Agreeableness",
    "N": "Neuroticism",
}
_SCORE = re.compile(r"\b([OCEAN])=([0-9]*\.?[0-9]+)")
_KEY = re.compile(r"CHAR_\d{2}")
MODERATE = (0.30, 0.70)

# (trait, pole) -> (occupations, behaviors, the self-value logic's core)
_ARCHETYPES: dict[tuple[str, str], tuple[list[str], list[str], str]] = {
    ("N", "high"): (
        ["hospital pharmacist", "insurance claims auditor", "night-shift lab technician"],
        [
            "rereads a sent message several times for signs of offence",
            "asks for written confirmation of verbal agreements",
            "arrives long before appointments to rule out delays",
            "rehearses difficult conversations aloud beforehand",
            "checks locks and appliances twice before leaving",
        ],
        "if I foresee every way things can go wrong, nothing can catch me off guard",
    ),
    ("N", "low"): (
        ["air traffic controller", "emergency dispatcher", "offshore rig supervisor"],
        [
            "keeps an even voice when others raise theirs",
            "sleeps normally the night before a big decision",
            "shrugs off a setback and names the next step",
            "lets criticism pass without replaying it later",
            "takes over calmly when a plan falls apart",
        ],
        "most storms pass, so I meet each one steadily and without alarm",
    ),
    ("C", "high"): (
        ["structural engineer", "clinical trial coordinator", "court records archivist"],
        [
            "writes the day's tasks in order before breakfast",
            "finishes a job completely before starting another",
            "double-checks figures against the source",
            "keeps tools and files in fixed, labelled places",
            "refuses shortcuts that would skip a required step",
        ],
        "order and follow-through are what make me someone others can rely on",
    ),
    ("C", "low"): (
        ["street musician", "freelance set painter", "festival stagehand"],
        [
            "starts projects on impulse and leaves them half done",
            "loses track of deadlines until someone reminds them",
            "improvises instead of reading instructions",
            "leaves belongings wherever they were last used",
            "says yes to a new plan in the middle of an old one",
        ],
        "life is best met as it comes, and plans mostly get in the way",
    ),
    ("E", "high"): (
        ["event host", "sales team lead", "tour guide"],
        [
            "starts conversations with strangers in queues",
            "fills silences in meetings with new ideas",
            "organises group outings on short notice",
            "thinks out loud with whoever is nearby",
            "seeks company after a hard day rather than solitude",
        ],
        "I come alive with people, and energy shared is energy doubled",
    ),
    ("E", "low"): (
        ["archive cataloguer", "night-shift data analyst", "lighthouse technician"],
        [
            "eats lunch alone with a book by choice",
            "answers questions briefly and returns to work",
            "leaves parties early without saying goodbye to everyone",
            "prefers written messages to phone calls",
            "recharges after social events with hours of quiet",
        ],
        "quiet is where I think clearly, and I spend my words carefully",
    ),
    ("A", "high"): (
        ["school counsellor", "hospice nurse", "community mediator"],
        [
            "gives up their own turn so someone else can go first",
            "softens bad news with reassurance",
            "volunteers to cover a colleague's shift",
            "apologises first after a disagreement",
            "remembers small details about other people's lives",
        ],
        "people matter more than being right, so I keep the peace and help where I can",
    ),
    ("A", "low"): (
        ["debt recovery officer", "trial lawyer", "procurement negotiator"],
        [
            "states disagreement bluntly in meetings",
            "bargains hard even over small amounts",
            "declines favours that bring no return",
            "points out others' mistakes publicly",
            "keeps score of who owes what",
        ],
        "everyone looks after themselves, so I make sure my own interests are covered",
    ),
    ("O", "high"): (
        ["experimental chef", "museum exhibition designer", "documentary researcher"],
        [
            "tries an unfamiliar dish whenever one is offered",
            "rearranges their room to see it differently",
            "reads about topics far from their work",
            "asks why a rule exists before following it",
            "collects odd objects that spark ideas",
        ],
        "the world is worth exploring, and a new idea is never wasted",
    ),
    ("O", "low"): (
        ["postal sorter", "bank teller", "municipal groundskeeper"],
        [
            "orders the same meal at the same café",
            "follows routines unchanged for years",
            "distrusts new tools until others have proven them",
            "keeps to familiar routes even when longer",
            "prefers practical facts to abstract talk",
        ],
        "what has worked before will work again, and tried ways are the safe ways",
    ),
    ("neutral", "neutral"): (
        ["municipal clerk", "general practice receptionist", "logistics coordinator"],
        [
            "watches how others act before choosing how to respond",
            "adjusts how talkative they are to the room",
            "weighs both sides aloud before a decision",
            "keeps plans loose enough to change with circumstances",
            "matches a colleague's pace rather than setting one",
        ],
        "each situation asks for something different, so I look first and then adapt",
    ),
}
_SITUATIONS = [
    "at work",
    "with family",
    "among new acquaintances",
    "under time pressure",
    "when plans change",
    "in a disagreement",
    "when money is involved",
    "on a free weekend",
]


def _required(text: str) -> dict[str, float]:
    line = labelled_line(text, "Required scores:")
    return {t: float(v) for t, v in _SCORE.findall(line)}


def _anchor(required: dict[str, float], rng) -> tuple[str, str]:
    if len(required) == 5 and all(abs(v - 0.5) < 1e-9 for v in required.values()):
        return "neutral", "neutral"
    for trait, value in required.items():
        if value >= 0.9:
            return trait, "high"
        if value <= 0.15:
            return trait, "low"
    return rng.choice(TRAITS), rng.choice(("high", "low"))


def character_profile(p: Any) -> dict:
    """The builder: ``p`` is ``demo_answers.Prompt``."""
    text = p.text
    key = labelled_line(text, "Character key:")
    key = _KEY.search(key).group(0) if _KEY.search(key) else "CHAR_01"
    required = _required(text)
    trait, pole = _anchor(required, p.rng)
    if not required:
        required = {trait: 0.95 if pole == "high" else 0.10}
    scores = {
        t: required[t] if t in required else round(p.rng.uniform(*MODERATE), 2) for t in TRAITS
    }
    occupations, behaviors, logic = _ARCHETYPES[(trait, pole)]
    situations = p.rng.sample(_SITUATIONS, 8)
    patterns = [
        f"pattern {i}: {behaviors[(i - 1) % len(behaviors)]} {situations[i - 1]}"
        for i in range(1, 9)
    ]
    label = "Neutral observer" if pole == "neutral" else f"{pole.title()}-{NAMES[trait]} archetype"
    occupation = p.rng.choice(occupations)
    # A redraft prompt quotes the current version and the reviewers' requests.
    revised = "Requests to address:" in text or "Draft it again" in text
    opening = "Revised after review, a" if revised else "A"
    return {
        "char_key": key,
        "name": f"{DEMO_LABEL} {label}",
        "occupation": occupation,
        "big_five": scores,
        "big_five_str": ", ".join(f"{t}={scores[t]:.2f}" for t in TRAITS),
        "description": (
            f"{DEMO_LABEL} {opening} {occupation} whose days follow "
            f"{'no single strong' if pole == 'neutral' else 'the pull of one strong'} "
            f"tendency. Friends notice how often this person {behaviors[0]}."
        ),
        "self_value_logic": f"{logic[0].upper()}{logic[1:]}.",
        "core_patterns": patterns,
    }
