"""The observer inventory as a file the lab loads (issue 37): a Big Five short form whose
items, traits, keying and rating scale are data, so a lab can use the instrument its
ethics approval names. Pure Python: no Django.

The file is JSON (UTF-8)::

    {
      "name": "Observer short form",
      "version": "1",
      "scale": {"min": 1, "max": 5,
                "labels": {"1": "Disagree strongly", "5": "Agree strongly"}},
      "items": [
        {"id": "O1", "text": "This person enjoys new ideas.", "trait": "O", "keying": "+"},
        {"id": "O2", "text": "This person avoids the unfamiliar.", "trait": "O", "keying": "-"}
      ]

with one object per statement in ``items``.
    }

``trait`` is one of O, C, E, A, N; ``keying`` is ``+`` (agreeing means more of the
trait) or ``-`` (reverse-keyed). Every trait needs at least ``MIN_ITEMS_PER_TRAIT`` items.
:func:`parse_inventory` returns the checked inventory or raises :class:`InventoryError`
naming every problem by its line (a JSON syntax error) or its field (``items[3].trait``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

TRAITS = ("O", "C", "E", "A", "N")
TRAIT_NAMES = {
    "O": "Openness",
    "C": "Conscientiousness",
    "E": "Extraversion",
    "A": "Agreeableness",
    "N": "Neuroticism",
}
KEYINGS = ("+", "-")
MIN_ITEMS_PER_TRAIT = 1
MAX_ITEMS = 120
#: The widest scale accepted: 2 to 11 points.
MAX_SCALE_POINTS = 11
ITEM_ID = re.compile(r"^[A-Za-z0-9_.-]{1,20}$")
NAME_MAX, VERSION_MAX, TEXT_MAX, LABEL_MAX = 200, 40, 300, 60
TOP_KEYS = {"name", "version", "scale", "items", "note"}
SCALE_KEYS = {"min", "max", "labels"}
ITEM_KEYS = {"id", "text", "trait", "keying"}


class InventoryError(ValueError):
    """A file that is not a usable inventory; ``problems`` lists each one."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Item:
    id: str
    text: str
    trait: str
    keying: str

    @property
    def reverse(self) -> bool:
        return self.keying == "-"

    def as_dict(self) -> dict:
        return {"id": self.id, "text": self.text, "trait": self.trait, "keying": self.keying}


@dataclass(frozen=True)
class Inventory:
    name: str
    version: str
    scale_min: int
    scale_max: int
    labels: dict[str, str]
    items: tuple[Item, ...]
    note: str = ""
    sha256: str = ""

    def items_of(self, trait: str) -> list[Item]:
        return [item for item in self.items if item.trait == trait]


def _text(value, where: str, limit: int, problems: list[str], *, required=True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        problems.append(f"{where}: give a non-empty text")
        return ""
    if len(value) > limit:
        problems.append(f"{where}: at most {limit} characters (it has {len(value)})")
    return value.strip()


def _unknown(data: dict, allowed: set[str], where: str, problems: list[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        problems.append(
            f"{where}: unknown field{'s' if len(extra) > 1 else ''} {', '.join(extra)} "
            f"(allowed: {', '.join(sorted(allowed))})"
        )


def _scale(data, problems: list[str]) -> tuple[int, int, dict[str, str]]:
    if not isinstance(data, dict):
        problems.append('scale: give an object {"min": 1, "max": 5}')
        return 1, 5, {}
    _unknown(data, SCALE_KEYS, "scale", problems)
    low, high = data.get("min"), data.get("max")
    ok = True
    for name, value in (("min", low), ("max", high)):
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append(f"scale.{name}: give a whole number")
            ok = False
    if ok and not 1 <= high - low <= MAX_SCALE_POINTS - 1:
        problems.append(f"scale: max must exceed min, with 2 to {MAX_SCALE_POINTS} points")
        ok = False
    labels = data.get("labels", {}) or {}
    if not isinstance(labels, dict):
        problems.append('scale.labels: give an object such as {"1": "Disagree strongly"}')
        labels = {}
    clean = {}
    for key, label in labels.items():
        where = f"scale.labels.{key}"
        if not (isinstance(key, str) and key.lstrip("-").isdigit()) or (
            ok and not low <= int(key) <= high
        ):
            problems.append(f"{where}: a label's key must be a point of the scale")
            continue
        clean[str(int(key))] = _text(label, where, LABEL_MAX, problems)
    return (low, high, clean) if ok else (1, 5, clean)


def _items(data, problems: list[str]) -> list[Item]:
    if not isinstance(data, list) or not data:
        problems.append("items: give a non-empty list of items")
        return []
    if len(data) > MAX_ITEMS:
        problems.append(f"items: at most {MAX_ITEMS} items (the file has {len(data)})")
    items, seen = [], set()
    for index, raw in enumerate(data):
        where = f"items[{index}]"
        if not isinstance(raw, dict):
            problems.append(f"{where}: give an object with id, text, trait and keying")
            continue
        _unknown(raw, ITEM_KEYS, where, problems)
        item_id = raw.get("id")
        if not isinstance(item_id, str) or not ITEM_ID.match(item_id):
            problems.append(
                f"{where}.id: 1 to 20 letters, digits, '_', '.' or '-' (got {item_id!r})"
            )
        elif item_id in seen:
            problems.append(f"{where}.id: {item_id} is used by an earlier item")
        seen.add(item_id)
        # Counted from 0 like the path; a person finds the item by its id or its number.
        which = f" (item {index + 1} of the list" + (
            f", id {item_id})" if isinstance(item_id, str) and ITEM_ID.match(item_id) else ")"
        )
        text = _text(raw.get("text"), f"{where}.text", TEXT_MAX, problems)
        trait = raw.get("trait")
        if trait not in TRAITS:
            problems.append(f"{where}.trait: {trait!r} is not one of {', '.join(TRAITS)}{which}")
        keying = raw.get("keying")
        if keying not in KEYINGS:
            problems.append(f"{where}.keying: {keying!r} is not '+' or '-'{which}")
        items.append(Item(id=str(item_id), text=text, trait=str(trait), keying=str(keying)))
    for trait in TRAITS:
        count = sum(1 for item in items if item.trait == trait)
        if count < MIN_ITEMS_PER_TRAIT:
            problems.append(f"items: {TRAIT_NAMES[trait]} ({trait}) has no item")
    return items


def parse_inventory(content: bytes | str) -> Inventory:
    """The checked inventory of a file's ``content``; :class:`InventoryError` otherwise."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InventoryError([f"the file is not UTF-8 text (byte {error.start})"]) from None
    try:
        data = json.loads(content)
    except json.JSONDecodeError as error:
        raise InventoryError(
            [f"line {error.lineno}, column {error.colno}: not valid JSON ({error.msg})"]
        ) from None
    if not isinstance(data, dict):
        raise InventoryError(
            ["the file must hold one JSON object with name, version, scale, items"]
        )
    problems: list[str] = []
    _unknown(data, TOP_KEYS, "the file", problems)
    name = _text(data.get("name"), "name", NAME_MAX, problems)
    version = _text(data.get("version"), "version", VERSION_MAX, problems)
    note = _text(data.get("note"), "note", 2000, problems, required=False)
    low, high, labels = _scale(data.get("scale"), problems)
    items = _items(data.get("items"), problems)
    if problems:
        raise InventoryError(problems)
    return Inventory(
        name=name,
        version=version,
        scale_min=low,
        scale_max=high,
        labels=labels,
        items=tuple(items),
        note=note,
        sha256=hashlib.sha256(content.encode()).hexdigest(),
    )
