"""What the demo answers are made of (`llm.demo.answers`): phrase banks with enough
variety that three models never say the same thing, and the readers that take what an
answer needs out of a platform prompt (labelled lines, `<item_data>`, memory ids, options).
Pure text handling; no Django."""

from __future__ import annotations

import hashlib
import json
import random
import re

DEMO_LABEL = "[offline demo provider]"


_ITEM_DATA = re.compile(r"<item_data>\s*(.*?)\s*</item_data>", re.DOTALL)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]{3,}")
_STOP = set(
    "this that with from your have what when where which they them their there then than "
    "into about would could should will been being were does just only also more most "
    "some such very each other after before while because over under again".split()
)


def unit_draw(*parts: object) -> float:
    """A number in [0, 1) fixed by ``parts``: the same item is flagged in every retry."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def labelled_line(text: str, label: str) -> str:
    match = re.search(rf"^\s*{re.escape(label)}\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def item_data(user: str) -> dict | None:
    match = _ITEM_DATA.search(user)
    if not match:
        return None
    try:
        data = json.loads(match.group(1))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def content_words(text: str, limit: int = 40) -> list[str]:
    seen = dict.fromkeys(
        w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP and not w.isupper()
    )
    return list(seen)[:limit]


def excerpt(text: str, words: int = 8) -> str:
    return " ".join(str(text).split()[:words])


def matching_ids(text: str, pattern: str | None) -> list[str]:
    if not pattern:
        return []
    tokens = re.findall(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*", text)
    return list(dict.fromkeys(t for t in tokens if re.search(pattern, t)))


# --- phrase banks: enough variety that three models never say the same thing ---------

OPENINGS = (
    "My chest tightens before I have found a single word.",
    "For a moment I only listen to my own breathing.",
    "I notice my hands have gone still on the table.",
    "Something in me wants to run and something wants to stay.",
    "I feel the old pull to please everyone in the room.",
    "A flush of heat climbs my neck; I keep my voice level.",
    "I count the seconds and decide not to hide this time.",
    "My first thought is about who will be hurt if I get this wrong.",
)
STANCES = (
    "I say plainly what I need and wait for the answer",
    "I ask one careful question before I commit to anything",
    "I step back, write down my options and choose the quieter one",
    "I take the responsibility myself rather than hand it to someone else",
    "I keep my promise even though it costs me the evening",
    "I tell the truth, softly, and accept the awkward silence after it",
    "I make a joke to ease the room and then do the hard part anyway",
    "I refuse, politely but without apologising twice",
    "I go to the person directly instead of talking around them",
    "I buy myself a day to think and say so honestly",
)
TONES = (
    "guarded, then steadier; moderate",
    "anxious but determined; high",
    "warm and a little tired; low",
    "restless, tender; moderate",
    "irritated, controlled; moderate",
    "calm on the surface, shaky beneath; high",
    "hopeful, cautious; low",
)
REASONS = (
    "Every time I waited for others to decide, I regretted it.",
    "I learned early that a clear answer hurts less than a long silence.",
    "People have trusted me with less and I kept faith; I will not break it now.",
    "When I rush, I repeat old mistakes, so I slow myself down on purpose.",
    "I would rather be thought stubborn than be someone who disappears.",
    "Being useful has always been how I feel safe, and this is a chance to be useful.",
    "I protect the few people close to me before I protect my pride.",
)
NARRATIVE = (
    "I stand near the door and listen to the rain on the window.",
    "My shoes are still wet and I can feel the cold through my socks.",
    "Someone laughs in the next room and I do not know why.",
    "I hold the letter with both hands so they stop shaking.",
    "The kitchen smells of burnt toast and soap.",
    "I want to say something clever but my mouth stays closed.",
    "You ask me whether I am all right, and I nod too quickly.",
    "I count the tiles on the floor while I wait.",
    "The light outside is grey and flat, and the street is almost empty.",
    "I press my thumb against the edge of the table until it hurts a little.",
    "My stomach feels tight, as if I had swallowed a stone.",
    "I hear the clock and every tick sounds louder than the one before.",
    "I decide to walk home the long way so I can think.",
    "I keep my coat on even though the room is warm.",
    "I look at your face and try to guess what you are going to say.",
    "A bus passes and the windows rattle softly.",
    "I fold the paper into a small square and put it in my pocket.",
    "I can taste salt on my lips and I am not sure if it is from crying.",
    "My heart is beating fast, and I breathe slowly to calm it.",
    "I tell myself to stay, even though part of me wants to leave.",
)
DEMO_WORDS = (
    "remember quiet choose careful listen stay open steady trust wait answer "
    "hope worry decide familiar door rain morning voice letter walk home"
).split()


def labelled(text: str) -> str:
    return f"{DEMO_LABEL} {text}"


def pick_words(rng: random.Random, words: list[str], n: int) -> list[str]:
    pool = words or DEMO_WORDS
    return [rng.choice(pool) for _ in range(n)]


def memory_line(text: str, memory_id: str) -> str:
    match = re.search(rf"^.*{re.escape(memory_id)}.*$", text, re.MULTILINE)
    return match.group(0) if match else ""


def decision_options(user: str) -> list[tuple[str, str]]:
    block = user.split("## Decision options", 1)[-1]
    return re.findall(r"^([A-D])\.\s*(.*)$", block, re.MULTILINE)


def evidence_words(user: str) -> set[str]:
    blocks = [
        b
        for b in user.split("\n## ")
        if b.startswith(("Character profile", "Retrieved autobiographical memories"))
    ]
    return set(content_words(" ".join(blocks), limit=400))


def memory_json(user: str) -> dict:
    block = user.split("## The memory", 1)[-1].split("\n## ", 1)[0]
    try:
        data = json.loads(block)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
