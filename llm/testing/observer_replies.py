"""The fake provider's observer (issue 37): rates the inventory statements of an observer
prompt from the passages' text alone, so passages written for another personality give
other ratings. Deterministic; no Django.

How it rates: a small lexicon of its own gives, per trait, words that mark its high and
its low pole. In the passages (the text between the prompt's two headings) it counts the
hits of each pole; the trait's evidence is ``s = (high - low) / (high + low + 1)``, in
(-1, 1). A statement's own words place it on a trait and a pole (the pole whose words it
contains most; a statement with none is rated at the middle). A high-pole statement gets
``mid + s * half``, a low-pole one ``mid - s * half``, rounded half away from zero and
kept on the scale (``mid``, ``half``: the scale's middle and half-width).

Use it as a responder (``FakeProviderServer(responder=ObserverResponder())``), or wrap
another responder, which then answers every request that is not an observer prompt:
``ObserverResponder(fallback=DemoResponder())``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from llm.testing.replies import Reply

ANSWER_FIELD = "observer_ratings"
MEMORIES_HEADING = "=== What you have read about this person ==="
ITEMS_HEADING = "=== Statements to rate ==="
TRAITS = ("O", "C", "E", "A", "N")

#: trait → (high-pole word starts, low-pole word starts); a word matches when it starts
#: with one of them.
LEXICON: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "O": (
        ("curio", "imagin", "invent", "explor", "wonder", "novel", "poem", "paint"),
        ("familiar", "routine", "tradition", "convention", "unchanging"),
    ),
    "C": (
        ("plans", "planned", "plann", "schedul", "careful", "organis", "organiz", "tidy"),
        ("mess", "forget", "forgot", "careless", "late", "chaos", "sloppy"),
    ),
    "E": (
        ("crowd", "talking", "laugh", "energ", "party", "parties", "cheer", "chatt"),
        ("alone", "quiet", "solitude", "withdr", "shy", "silent"),
    ),
    "A": (
        ("help", "forgiv", "kind", "gentle", "generous", "trusting"),
        ("blame", "argu", "cold", "suspicio", "stubborn", "rude", "spite"),
    ),
    "N": (
        ("worr", "anxious", "anxiety", "tense", "panic", "nervous", "dread"),
        ("calm", "relaxed", "steady", "untroubled", "composed", "serene"),
    ),
}
_WORD = re.compile(r"[a-z]+")


def _hits(text: str) -> dict[tuple[str, int], int]:
    """(trait, pole 0 high / 1 low) → how many words of ``text`` start with its marks."""
    counts = {(t, p): 0 for t in TRAITS for p in (0, 1)}
    for word in _WORD.findall(text.lower()):
        for trait, poles in LEXICON.items():
            for pole, starts in enumerate(poles):
                if word.startswith(starts):
                    counts[(trait, pole)] += 1
    return counts


def trait_evidence(passages: str) -> dict[str, float]:
    """trait → s in (-1, 1): how far the passages lean to its high pole."""
    hits = _hits(passages)
    return {t: (hits[(t, 0)] - hits[(t, 1)]) / (hits[(t, 0)] + hits[(t, 1)] + 1) for t in TRAITS}


def item_place(text: str) -> tuple[str, int] | None:
    """(trait, pole) a statement's own words place it on; None when they name none."""
    hits = _hits(text)
    best = max(hits, key=lambda key: (hits[key], -TRAITS.index(key[0]), -key[1]))
    return best if hits[best] else None


def _round(value: float) -> int:
    return int(math.floor(value + 0.5)) if value >= 0 else -int(math.floor(-value + 0.5))


def rate(passages: str, items: dict[str, str], scale_min: int, scale_max: int) -> dict[str, int]:
    """item id → rating of each statement (see the module)."""
    evidence = trait_evidence(passages)
    mid, half = (scale_min + scale_max) / 2, (scale_max - scale_min) / 2
    ratings = {}
    for item_id, text in items.items():
        place = item_place(text)
        if place is None:
            value = mid
        else:
            trait, pole = place
            lean = evidence[trait] if pole == 0 else -evidence[trait]
            value = mid + lean * half
        ratings[item_id] = min(scale_max, max(scale_min, _round(value)))
    return ratings


def is_observer_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and ANSWER_FIELD in (schema.get("properties") or {})


def answer(user: str, schema: dict) -> dict:
    """The observer's answer to one prompt (its user text and answer schema)."""
    rating_schema = schema["properties"][ANSWER_FIELD]
    ids = list(rating_schema.get("required") or rating_schema.get("properties") or [])
    first = next(iter(rating_schema["properties"].values()))
    scale_min, scale_max = int(first["minimum"]), int(first["maximum"])
    passages = user.split(MEMORIES_HEADING, 1)[-1].split(ITEMS_HEADING, 1)[0]
    statements = user.split(ITEMS_HEADING, 1)[-1]
    items = {}
    for item_id in ids:
        found = re.search(rf"^- {re.escape(item_id)}: (.*)$", statements, flags=re.MULTILINE)
        items[item_id] = found.group(1) if found else ""
    return {ANSWER_FIELD: rate(passages, items, scale_min, scale_max)}


class ObserverResponder:
    """A fake-server responder: observer prompts get :func:`answer`; any other request
    goes to ``fallback`` (None: a 500 saying nothing was scripted). ``seen`` counts the
    observer prompts answered."""

    def __init__(self, fallback: Callable[[Any], Any] | None = None) -> None:
        self.fallback = fallback
        self.seen = 0

    def __call__(self, req) -> Any:
        schema = req.schema() or {}
        if is_observer_schema(schema):
            self.seen += 1
            user = "\n".join(text for role, text in req.turns() if role == "user")
            return Reply(value=answer(user, schema))
        if self.fallback is None:
            raise LookupError("the fake observer answers observer prompts only")
        return self.fallback(req)
