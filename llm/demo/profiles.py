"""The demo answer to a character-drafting prompt (seed 000 App. L.2): a complete profile
in the drafting schema, labelled as demo text.

It honours the request: the character key and the required scores are read from the
prompt's "Character key:" and "Required scores:" lines (the block the drafting design
writes), the other scores are drawn from the moderate 0.30-0.70 range, and the
occupation and the eight patterns fit the defining trait. Drawn from the prompt's seeded
generator, so the same seed, model and prompt give the same profile and another seed or
model another one.

A redraft prompt (it quotes the current version as JSON and names the field to change,
"change only the field … (JSON: key)", or asks for the whole profile) is answered as the
prompt asks: the current profile copied, and the named field (or, for the whole profile,
every prose field) written anew so that it differs from the current value, taking up
the first suggested correction or the administrator's note. A redraft answered with
the current value would be refused by the platform as "identical to version N", on
every attempt.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from .material import DEMO_LABEL, labelled_line

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
    current = _current_profile(p.user)
    if current is not None:
        return _redrafted(p, current)
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
    return {
        "char_key": key,
        "name": f"{DEMO_LABEL} {label}",
        "occupation": occupation,
        "big_five": scores,
        "big_five_str": ", ".join(f"{t}={scores[t]:.2f}" for t in TRAITS),
        "description": (
            f"{DEMO_LABEL} A {occupation} whose days follow "
            f"{'no single strong' if pole == 'neutral' else 'the pull of one strong'} "
            f"tendency. Friends notice how often this person {behaviors[0]}."
        ),
        "self_value_logic": f"{logic[0].upper()}{logic[1:]}.",
        "core_patterns": patterns,
    }


# --- redrafts ------------------------------------------------------------------------

_FIELD_HINT = re.compile(
    r"\(JSON: (name|occupation|big_five|description|self_value_logic|core_patterns)"
    r"(?:\[(\d+)\])?\)"
)
_FIELD_LABEL = re.compile(r"change only the field “([^”]+)”")
_LABEL_KEYS = {
    "construction label": "name",
    "occupation": "occupation",
    "big five vector": "big_five",
    "description": "description",
    "self-value logic": "self_value_logic",
}
_CORE_PATTERN_LABEL = re.compile(r"core pattern (\d+)$")
_CORRECTION = re.compile(r"Suggested correction:\s*(.+)")
_LOGIC_FORMS = (
    "{logic}.",
    "Above all, {logic}.",
    "{logic}, and I hold to that when it costs me.",
    "{logic}; it is the rule I come back to.",
    "When in doubt I remind myself that {logic}.",
)


def _current_profile(user: str) -> dict | None:
    """The first JSON object in the user turn shaped like a profile (the version a
    redraft quotes); None for a first draft."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", user):
        try:
            value, _ = decoder.raw_decode(user, match.start())
        except ValueError:
            continue
        if isinstance(value, dict) and {"char_key", "big_five", "core_patterns"} <= set(value):
            return value
    return None


def _requested_field(user: str) -> tuple[str, int | None] | None:
    """The one field a redraft asks to change (key, pattern index) or None (whole
    profile): the prompt's "(JSON: key)" hint, else its label."""
    hint = _FIELD_HINT.search(user)
    if hint:
        index = int(hint.group(2)) if hint.group(2) else None
        return hint.group(1), index
    label = _FIELD_LABEL.search(user)
    if not label:
        return None
    text = label.group(1).strip().lower()
    pattern = _CORE_PATTERN_LABEL.match(text)
    if pattern:
        return "core_patterns", int(pattern.group(1)) - 1
    key = _LABEL_KEYS.get(text)
    return (key, None) if key else None


def _asked(user: str) -> str:
    """What the reviewers asked for: the first suggested correction, else the note."""
    found = _CORRECTION.search(user)
    if found:
        return found.group(1).strip()
    note = labelled_line(user, "Note from the administrator:")
    return "" if note in ("", "(none)") else note


def _folded(pattern: str) -> str:
    return " ".join(re.sub(r"^\s*(?:pattern\s*)?\d+\s*[:.)-]\s*", "", pattern).lower().split())


def _first_new(candidates, current) -> Any:
    return next(c for c in candidates if c != current)


def _new_pattern(rng, number: int, behaviors, taken: set[str]) -> str:
    options = [f"{b} {s}" for b in behaviors for s in _SITUATIONS]
    rng.shuffle(options)
    fresh = next((o for o in options if o.lower() not in taken), None)
    if fresh is None:  # every combination is in use: say it differently
        fresh = f"{rng.choice(behaviors)}, most of all {rng.choice(_SITUATIONS)} and after it"
    return f"pattern {number}: {fresh}"


def _redrafted(p: Any, current: dict) -> dict:
    """The profile a redraft asks for: ``current`` with the requested field (or every
    prose field) changed; the scores the design fixes are kept."""
    rng, user = p.rng, p.user
    out = copy.deepcopy(current)
    required = _required(p.text)
    trait, pole = _anchor(required or {}, rng)
    occupations, behaviors, logic = _ARCHETYPES[(trait, pole)]
    asked = _asked(user)
    requested = _requested_field(user)
    fields = {requested[0]} if requested else {"occupation", "description", "self_value_logic"}
    patterns = list(out["core_patterns"])
    if requested and requested[0] == "core_patterns":
        indexes = [requested[1]] if requested[1] is not None else range(len(patterns))
    elif requested:
        indexes = []
    else:
        indexes = range(len(patterns))
    if "name" in fields:
        base = re.sub(r" \(revised[^)]*\)$", "", str(out["name"]))
        out["name"] = _first_new(
            [f"{base} (revised after review)"]
            + [f"{base} (revised, round {n})" for n in range(2, 50)],
            out["name"],
        )
    if "occupation" in fields:
        others = [o for o in occupations if o != out["occupation"]]
        rng.shuffle(others)
        out["occupation"] = _first_new(
            others + [f"senior {out['occupation']}", f"{out['occupation']} (part-time)"],
            out["occupation"],
        )
    if "big_five" in fields:
        scores = dict(out["big_five"])
        free = [t for t in TRAITS if t not in required]
        for _ in range(50):
            if not free:
                break
            trial = {
                t: required.get(t, scores[t]) if t not in free else round(rng.uniform(*MODERATE), 2)
                for t in TRAITS
            }
            if trial != scores:
                scores = trial
                break
        out["big_five"] = scores
        out["big_five_str"] = ", ".join(f"{t}={scores[t]:.2f}" for t in TRAITS)
    if "description" in fields:
        reason = (
            f"As the reviewers asked: {asked.rstrip('.')}."
            if asked
            else f"Friends notice how often this person {rng.choice(behaviors)}."
        )
        out["description"] = _first_new(
            [
                f"{DEMO_LABEL} Revised after review, a {out['occupation']} whose days follow "
                f"{'no single strong' if pole == 'neutral' else 'the pull of one strong'} "
                f"tendency. {reason}"
            ]
            + [
                f"{DEMO_LABEL} Revised after review (round {n}), a {out['occupation']}. {reason}"
                for n in range(2, 50)
            ],
            out["description"],
        )
    if "self_value_logic" in fields:
        forms = list(_LOGIC_FORMS)
        rng.shuffle(forms)
        written = [f.format(logic=logic) for f in forms]
        out["self_value_logic"] = _first_new(
            [w[0].upper() + w[1:] for w in written], out["self_value_logic"]
        )
    for index in indexes:
        if not 0 <= index < len(patterns):
            continue
        taken = {_folded(x) for x in patterns}
        patterns[index] = _new_pattern(rng, index + 1, behaviors, taken)
    out["core_patterns"] = patterns
    return out
