"""How the statistics pages name and format what they show: one place for the human
label of a slug, the order and casing of the model families, and the number formats.

Pure Python (no Django), so the plots (:mod:`core.plots`), the template
filters (``{% load display %}``) and the CSV-free parts of the views all agree.
"""

import math
import re

#: The model families in the paper's order (seed 000 §2.4: Claude, GPT, Gemini), with
#: their casing. The slugs are those of ``annotation.generation.models.ModelFamily``.
FAMILIES = (("claude", "Claude"), ("gpt", "GPT"), ("gemini", "Gemini"))
_FAMILY_LABELS = dict(FAMILIES)
_FAMILY_RANK = {slug: i for i, (slug, _) in enumerate(FAMILIES)}

#: Words a slug may contain that keep their own casing in a label.
_WORDS = {"gpt": "GPT", "claude": "Claude", "gemini": "Gemini", "rag": "RAG", "llm": "LLM"}
_WORDS |= {"mcq": "MCQ", "ci": "CI", "id": "ID", "csv": "CSV", "diamonds": "DIAMONDS"}

#: An agreement coefficient over fewer units than this gets a note that its bootstrap
#: interval says little: resampling a handful of pairs or items gives a handful of
#: distinct values (with n = 2, at most three), so the interval is not informative.
SMALL_N = 10


def human_label(slug) -> str:
    """``age_30_transition`` → ``Age 30 transition``; ``gpt`` → ``GPT``;
    ``Low_Agreeableness`` (capitalised words joined by underscores, as the trait
    archetypes' keys) → ``Low Agreeableness``. Any other text that is no slug (it has a
    capital letter or a space, e.g. a record id such as ``CHAR_01``) is returned as it is."""
    if slug is None:
        return ""
    text = str(slug)
    if re.fullmatch(r"[A-Z][a-z]+(?:_[A-Z][a-z]+)+", text):
        return text.replace("_", " ")
    if not text or not re.fullmatch(r"[a-z0-9_\-]+", text):
        return text
    words = [_WORDS.get(w, w) for w in re.split(r"[_\-]+", text) if w]
    if not words:
        return text
    first = words[0]
    words[0] = first if first in _WORDS.values() else first[:1].upper() + first[1:]
    return " ".join(words)


def family_label(family) -> str:
    """``claude``/``CLAUDE``/``Claude`` → ``Claude``; anything else as a human label."""
    if family is None or family == "":
        return ""
    return _FAMILY_LABELS.get(str(family).strip().lower(), human_label(family))


def family_rank(family) -> tuple[int, str]:
    """A sort key that puts Claude, GPT and Gemini first, in that order, then the rest
    alphabetically (e.g. "Expert rewrite")."""
    key = str(family or "").strip().lower()
    return (_FAMILY_RANK.get(key, len(FAMILIES)), key)


def sort_families(values, key=lambda v: v) -> list:
    """``values`` in the canonical family order; ``key`` extracts the family."""
    return sorted(values, key=lambda v: family_rank(key(v)))


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def format_percent(proportion, digits: int = 1) -> str:
    """A rate (a proportion in [0, 1]) as a percentage with one decimal: ``42.3%``."""
    if _missing(proportion):
        return "—"
    return f"{100 * proportion:.{digits}f}%"


def format_points(difference, digits: int = 1) -> str:
    """A difference of proportions in percentage points, signed: ``+3.2 pts``."""
    if _missing(difference):
        return "—"
    return f"{100 * difference:+.{digits}f} pts".replace("-", "−")


def format_coefficient(value, digits: int = 3) -> str:
    """κ, α, ρ and the like, with three decimals and a true minus sign: ``−0.125``."""
    if _missing(value):
        return "—"
    return f"{value:.{digits}f}".replace("-", "−")


def format_count(n) -> str:
    """A count with a thousands separator: ``10,000``."""
    if _missing(n):
        return "—"
    return f"{int(n):,}"


def small_n_note(n, unit: str = "unit") -> str:
    """The note an agreement coefficient over ``n`` units carries, or ``""``. ``unit`` is
    singular and regular ("pair", "item", "scenario")."""
    if n is None or n >= SMALL_N:
        return ""
    units = unit if n == 1 else f"{unit}s"
    return (
        f"Computed from only {n} {units}: with fewer than {SMALL_N} {unit}s, the interval "
        "is not informative."
    )


# --- Plain names for the people who work in the pages (issue 32) -------------------
# Ids (CHAR_08, SCN_SCHOOL_AGE_3, MEM_…), slugs (age_30_transition, content_summary) and
# paper citations are for the records and the exports; a page a person works in names
# things in words. These helpers are the one place that turns the first into the second.

_CHARACTER_KEY = re.compile(r"CHAR_0*(\d+)")
_SCENARIO_ID = re.compile(r"SCN_([A-Z0-9_]+?)_(\d+)")

#: The memory record's fields (App. B.5) as a reader names them.
MEMORY_FIELD_LABELS = {
    "memory_id": "Memory",
    "timeline": "Time of life",
    "event_age": "Age at the event",
    "life_stage": "Life stage",
    "context": "Situation",
    "content_summary": "Summary",
    "content_full": "Full account",
    "triggers": "What brings it back",
    "psych_conclusion": "What they concluded",
    "behavior_policy": "How it shapes what they do",
    "emotion_primary": "Main emotion",
    "emotion_secondary": "Second emotion",
    "emotion_intensity": "Emotional intensity",
    "relevance_tags": "Themes",
}


def character_name(character, age=None) -> str:
    """``CHAR_08`` (or a ``Character``) → ``Character 8``; with ``age``,
    ``Character 8, age 30``. Anything that is no character key is returned as it is."""
    key = getattr(character, "key", character)
    if key is None:
        return ""
    match = _CHARACTER_KEY.fullmatch(str(key))
    name = f"Character {int(match.group(1))}" if match else str(key)
    return name if age in (None, "") else f"{name}, age {age}"


def scenario_title(scenario) -> str:
    """A scenario's title (``The Entrusted Caretaker``); given only an id such as
    ``SCN_ENTERING_MIDLIFE_7``, ``Entering midlife scenario 7``."""
    title = getattr(scenario, "name", "") or ""
    if title:
        return str(title)
    sid = getattr(scenario, "scenario_id", scenario)
    if sid is None:
        return ""
    match = _SCENARIO_ID.fullmatch(str(sid))
    if not match:
        return str(sid)
    return f"{human_label(match.group(1).lower())} scenario {int(match.group(2))}"


def memory_field_label(field) -> str:
    """``content_summary`` → ``Summary``; an unknown field as a human label."""
    return MEMORY_FIELD_LABELS.get(str(field), human_label(field))


def paper_reference(citation: str) -> str:
    """``seed 000 App. D.2`` / ``Seed 000's §2.4`` / ``App. D.2`` → ``HEART-Bench paper,
    App. D.2``: how a citation reads behind a page's help toggle (never in a
    participant's page)."""
    text = str(citation or "").strip().strip("()")
    text = re.sub(r"^\s*seed\s*000(?:'s)?\s*", "", text, flags=re.IGNORECASE).strip()
    return f"HEART-Bench paper, {text}" if text else "HEART-Bench paper"
