"""How the statistics pages name and format what they show: one place for the human
label of a slug, the order and casing of the model families, and the number formats.

Pure Python (no Django), so the plots (:mod:`heartbench_site.base.plots`), the template
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
    """``age_30_transition`` → ``Age 30 transition``; ``gpt`` → ``GPT``. A text that is
    no slug (it has a capital letter or a space) is returned as it is."""
    if slug is None:
        return ""
    text = str(slug)
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
