"""The demo answer for the memory generation prompt (seed 000 App. B.5, B.7, L.3).

It reads the slot from the user prompt's labelled lines ("Target age:", "Life-stage
bin:", "Intensity tier:", "Domain:") and writes one memory in the B.7 schema: a
first-person narrative told from inside the moment (no later knowledge, no hindsight
phrases), 2,000–4,500 characters, weaving the five narrative dimensions (surroundings,
spoken lines in quotes, in-the-moment thoughts, the body's response, the same day or the
next few days after), with an emotional intensity inside the tier's band.

Each memory is one scene assembled from the word banks of ``llm.demo.memory_text`` (per
setting and age group): sentences are drawn without repetition, filled from several
banks at once and shuffled within their paragraph, so memories share few content words
and the audit's TF-IDF duplicate check (criterion 4, cosine > 0.85) does not flag a
dry run of memory generation with this provider. Every sentence-like field starts with
the demo label. Pure text; no Django.
"""

from __future__ import annotations

import random
import re
from typing import Any

from . import memory_text as bank
from .material import DEMO_LABEL, labelled, labelled_line, matching_ids

# App. L.3 tiers on the [0, 1] intensity scale: A core wounds, B main-thread episodes,
# C daily friction, D ordinary days.
TIER_INTENSITY = {"A": (0.82, 0.97), "B": (0.6, 0.8), "C": (0.38, 0.58), "D": (0.12, 0.34)}
TIER_EMOTIONS = {
    "A": [
        ("fear", "shame"),
        ("grief", "anger"),
        ("humiliation", "helplessness"),
        ("terror", "guilt"),
    ],
    "B": [("anxiety", "hope"), ("pride", "nervousness"), ("anger", "hurt"), ("longing", "resolve")],
    "C": [("irritation", "embarrassment"), ("frustration", "amusement"), ("unease", "relief")],
    "D": [("contentment", ""), ("calm", "curiosity"), ("mild boredom", ""), ("quiet joy", "")],
}
DOMAINS = ("workplace", "interpersonal", "health", "creative", "daily life")
CONTENT_RANGE = (2000, 4500)
# The narrative aims a little above the minimum: short scenes keep the share of function
# words, which every memory shares, low in the TF-IDF vectors.
TARGET_CHARS = (2150, 2700)
DESCRIBERS = bank.ADJECTIVES + bank.COLOURS


class Draws:
    """Items drawn from the banks without repeating one within a memory."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self._left: dict[int, list] = {}

    def one(self, items: tuple | list) -> Any:
        left = self._left.get(id(items))
        if not left:
            left = list(items)
            self.rng.shuffle(left)
            self._left[id(items)] = left
        return left.pop()

    def fresh(self, items: tuple | list) -> bool:
        """Whether ``items`` still has an item this memory has not used."""
        left = self._left.get(id(items))
        return left is None or bool(left)


def _age_group(age: int) -> str:
    # The platform's one age rule (the life-stage bins, core/life_stages.py): School age
    # 6-11 is childhood, Adolescence 12-17; from 18 an adult.
    return "child" if age <= 11 else "teen" if age <= 17 else "adult"


def _int_line(text: str, label: str, default: int) -> int:
    match = re.search(r"\d+", labelled_line(text, label))
    return int(match.group(0)) if match else default


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _comma(line: str) -> str:
    """A spoken line followed by its speech tag ends with a comma, not a full stop."""
    return line[:-1] + "," if line.endswith(".") else line


def _lower(text: str) -> str:
    return text if text.startswith("I ") else text[:1].lower() + text[1:]


class Scene:
    """The slot's choices: where, who, what happens, and the sentences it is told in."""

    def __init__(self, rng: random.Random, *, age: int, setting: str, tier: str, level: str):
        self.rng, self.age, self.level = rng, age, level
        self.draws = Draws(rng)
        self.group = _age_group(age)
        banks = bank.SETTINGS[setting]
        self.banks, self.setting = banks, setting
        self.tense = tier in "AB"
        self.place = rng.choice(banks["places"])
        self.doing = rng.choice(banks["doing"])
        self.event = rng.choice(banks["heavy" if self.tense else "light"])
        self.when = rng.choice(bank.TIMES)
        role = rng.choice(bank.PEOPLE[self.group])
        name = rng.choice(bank.NAMES)
        # Half the time the other person has a name, half the time only a role.
        # ``person`` stands as a subject mid-sentence: "my uncle, Jude, is there".
        self.person, self.who = (f"{role}, {name},", name) if rng.random() < 0.5 else (role, role)
        self.beats = 0
        self.said = bank.SAID[(self.group, "tense" if self.tense else "easy")]

    # --- sentences of each narrative dimension ---

    def thing(self) -> str:
        return self.draws.one(self.banks["objects"])

    def sensory(self) -> str:
        d, kind = self.draws, self.rng.randrange(6)
        if kind == 0:
            return _cap(d.one(bank.SOUNDS)) + "."
        if kind == 1:
            return _cap(d.one(bank.SMELL_FRAMES).format(d.one(bank.SMELLS)))
        if kind == 2:
            feel = d.one(bank.FEELS)
            return d.one(bank.TOUCH_FRAMES).format(
                feel=feel,
                Feel=_cap(feel),
                surface=d.one(bank.SURFACES),
                part=d.one(bank.HAND_PARTS),
            )
        if kind == 3:
            return d.one(bank.PLACING).format(d.one(DESCRIBERS), self.thing())
        if kind == 4:
            return d.one(bank.HANDLING).format(self.thing())
        return _cap(d.one(bank.SIGHTS)) + "."

    def beat(self) -> str:
        if not self.draws.fresh(bank.BEATS[self.setting]):
            return self.sensory()
        # The other person acts in two beats at most; others in the room do the rest.
        self.beats += 1
        who = self.who if self.beats <= 2 else self.draws.one(bank.NAMES)
        return _cap(self.draws.one(bank.BEATS[self.setting]).format(who=who))

    def move(self) -> str:
        if not self.draws.fresh(bank.MOVES):
            return self.sensory()
        return self.draws.one(bank.MOVES)

    def exchange(self) -> str:
        d = self.draws
        said, reply = d.one(self.said), d.one(bank.REPLIES[self.group])
        tag, mine = d.one(bank.TAGS), d.one(bank.MY_TAGS)
        who = _cap(self.who)
        shape = self.rng.randrange(3)
        if shape == 0:
            return f'"{_comma(said)}" {self.who} {tag}. "{_comma(reply)}" {mine}.'
        if shape == 1:
            return f'{who} {tag}, "{said}" I wait a second. "{reply}"'
        return f'{who} {tag}: "{said}" "{_comma(reply)}" {mine}.'

    def thought(self) -> str:
        thoughts = (bank.THOUGHTS if self.tense else bank.EASY_THOUGHTS)[self.group]
        if not self.draws.fresh(thoughts):
            return self.sensory()
        return self.draws.one(thoughts)

    def body(self) -> str:
        if not self.draws.fresh(bank.BODY[self.level]):
            return self.sensory()
        return self.draws.one(bank.BODY[self.level])

    def aftermath(self) -> str:
        clause = self.draws.one(bank.AFTER).format(who=self.who, obj=self.thing())
        return f"{self.draws.one(bank.WHEN_AFTER)}, {_lower(clause)}."

    def opening(self) -> str:
        shape = self.rng.randrange(3)
        if shape == 0:
            return f"I am {self.age}, and it is {self.when}. I am {self.place}, {self.doing}."
        if shape == 1:
            return f"I am {self.age}. It is {self.when} and I am {self.place}, {self.doing}."
        return f"I am {self.age}, {self.place}, {self.doing} on {self.when}."

    def turn(self) -> str:
        frames = (
            "Then {event}.",
            "It happens fast: {event}.",
            "Out of nowhere {event}.",
            "And then {event}, just like that.",
            "Right in the middle of it, {event}.",
        )
        who = self.person if self.person[:1].isupper() else _cap(self.person)
        name = _cap(self.who)
        witness = (
            f"{who} is there and sees it.",
            f"{who} is standing right next to me.",
            f"{name} notices before anyone else.",
            f"{name} freezes, halfway through a sentence.",
            f"{who} turns round to look.",
        )
        return self.rng.choice(frames).format(event=self.event) + " " + self.rng.choice(witness)


def _paragraph(rng: random.Random, first: list[str], rest: list[str]) -> str:
    rng.shuffle(rest)
    return " ".join(first + rest)


def _narrative(scene: Scene, *, target: int, limit: int) -> str:
    rng = scene.rng
    paragraphs = [
        _paragraph(rng, [scene.opening()], [scene.sensory(), scene.sensory(), scene.beat()]),
        _paragraph(
            rng,
            [scene.turn()],
            [scene.exchange(), scene.body(), scene.thought(), scene.move()],
        ),
        _paragraph(
            rng,
            [scene.exchange()],
            [scene.thought(), scene.body(), scene.sensory(), scene.beat()],
        ),
    ]
    after = [scene.aftermath() for _ in range(2)]
    # More of the scene while the memory is short of its target length: surroundings
    # before the turn, anything after it.
    before = (scene.sensory, scene.sensory, scene.beat, scene.move)
    during = (*before, scene.thought, scene.body)
    turn = 0
    while len(DEMO_LABEL) + sum(len(p) + 2 for p in paragraphs + after) < target:
        paragraphs[turn % 3] += " " + rng.choice(during if turn % 3 else before)()
        turn += 1
    text = f"{DEMO_LABEL} " + "\n\n".join(paragraphs) + "\n\n" + " ".join(after)
    return _articles(text)[:limit].rstrip()


def _articles(text: str) -> str:
    """ "an" before a vowel where a bank item follows a template's "a"."""
    return re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)


def _words(rng: random.Random, sentences: list[str], low: int, high: int) -> str:
    """The first sentence, then more of ``sentences`` in order while the text stays
    within a length drawn from low–high words (the demo label's three included)."""
    target = rng.randint(low, high) - 3
    words, left = sentences[0].split(), []
    for sentence in sentences[1:]:
        more = sentence.split()
        if len(words) + len(more) <= target:
            words += more
        else:
            left.append(more)
    for more in left:
        if len(words) >= low - 3:
            break
        words += more
    return labelled(" ".join(words[: high - 3]).rstrip(",;:.") + ".")


def memory_answer(*, user: str, schema: Any, rng: random.Random) -> dict:
    """One schema-shaped memory for the slot the user prompt names."""
    props = (schema or {}).get("properties") or {}
    age = _int_line(user, "Target age:", 20)
    stage = labelled_line(user, "Life-stage bin:") or "life"
    tier = (labelled_line(user, "Intensity tier:")[:1] or "C").upper()
    tier = tier if tier in TIER_INTENSITY else "C"
    domain = labelled_line(user, "Domain:").lower() or rng.choice(DOMAINS)
    domain = domain if domain in bank.SETTINGS else "daily life"
    setting = "school" if domain == "workplace" and age <= 17 else domain
    low, high = TIER_INTENSITY[tier]
    intensity = round(rng.uniform(low, high), 2)
    level = "high" if intensity >= 0.6 else "mid" if intensity >= 0.38 else "low"
    primary, secondary = rng.choice(TIER_EMOTIONS[tier])
    scene = Scene(rng, age=age, setting=setting, tier=tier, level=level)
    spec = props.get("content_full") or {}
    least = max(CONTENT_RANGE[0], int(spec.get("minLength", 0)))
    most = min(CONTENT_RANGE[1], int(spec.get("maxLength", CONTENT_RANGE[1])))
    target = rng.randint(max(least + 150, TARGET_CHARS[0]), max(least + 150, TARGET_CHARS[1]))
    content = _narrative(scene, target=min(target, most - 600), limit=most)
    person = _cap(scene.person)
    context = [
        f"I am {age}, {scene.place}, on {scene.when}, {scene.doing}.",
        f"{person} is there with me.",
        _cap(scene.draws.one(bank.SOUNDS)) + ".",
        scene.thought(),
    ]
    gist = [
        f"{_cap(scene.event)} while I am {scene.place}.",
        f"{person} sees how I take it.",
        scene.body(),
        scene.aftermath(),
        scene.thought(),
    ]
    triggers = rng.sample(bank.TRIGGERS[setting], 3) + [scene.thing()]
    group = scene.group
    tags = [setting, stage.lower(), primary, group if group != "adult" else "adulthood"]
    value = {
        "id": _memory_id(user, props, rng),
        "timeline": f"{stage.lower()} ({age} years old)",
        "context": _words(rng, context, 15, 30),
        "content_summary": _words(rng, gist, 20, 40),
        "content_full": content,
        "triggers": triggers,
        # L.3: a 40-80-word conclusion and a 30-60-word policy.
        "psych_conclusion": labelled(" ".join(rng.sample(bank.CONCLUSIONS, 4))),
        "behavior_policy": labelled(" ".join(rng.sample(bank.POLICIES, 4))),
        "emotion_signature": {"primary": primary, "secondary": secondary, "intensity": intensity},
        "relevance_tags": tags,
    }
    emotion = (props.get("emotion_signature") or {}).get("properties") or {}
    for key in ("primary", "secondary"):
        allowed = (emotion.get(key) or {}).get("enum")
        if allowed and value["emotion_signature"][key] not in allowed:
            value["emotion_signature"][key] = rng.choice(allowed)
    return {k: v for k, v in value.items() if not props or k in props}


def _memory_id(user: str, props: dict, rng: random.Random) -> str:
    pattern = (props.get("id") or {}).get("pattern")
    offered = matching_ids(user, pattern) if pattern else []
    if offered:
        return offered[0]
    named = labelled_line(user, "Memory id:") or labelled_line(user, "Memory ID:")
    return named or f"MEM_DEMO_{rng.randrange(10**6):06d}"


# Deliberately invalid outputs (HEARTBENCH_DEMO_MEMORY_FAIL_SHARE): each breaks the B.7
# schema in a way a real model does, so the retry path and failed batches can be seen.
def spoiled(value: dict, rng: random.Random) -> dict:
    broken = dict(value)
    how = rng.choice(("missing", "short", "intensity"))
    if how == "missing":
        broken.pop("psych_conclusion", None)
    elif how == "short":
        broken["content_full"] = labelled("I stand there. That is all.")
    else:
        broken["emotion_signature"] = {**broken.get("emotion_signature", {}), "intensity": 1.7}
    return broken
