"""``{% load display %}``: the statistics pages' names and number formats
(:mod:`core.display`)."""

import re

from django import template
from django.template.loader import render_to_string
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from core import display
from core.diamonds import DIAMONDS_DEFINITIONS, DIAMONDS_LABELS
from core.life_stages import BY_KEY

register = template.Library()

register.filter("human", display.human_label)
register.filter("family", display.family_label)
register.filter("percent", display.format_percent)
register.filter("signed_points", display.format_points)
register.filter("count", display.format_count)


@register.filter
def coefficient(value, digits=3):
    """κ, α, ρ: ``{{ kappa|coefficient }}`` (three decimals) or ``|coefficient:2``."""
    return display.format_coefficient(value, int(digits))


@register.filter
def small_n(n, unit="unit"):
    """``{{ n|small_n:"pair" }}``: the note that an interval over so few units says little."""
    return display.small_n_note(n, unit)


register.filter("character_name", display.character_name)
register.filter("scenario_title", display.scenario_title)
register.filter("memory_field", display.memory_field_label)


@register.filter
def stage(key):
    """A life-stage key (``age_30_transition``) as its name (``Age-30 transition``)."""
    found = BY_KEY.get(str(key))
    return found.label if found else display.human_label(key)


_STAGE_KEYS = re.compile(r"\b(?:" + "|".join(map(re.escape, BY_KEY)) + r")\b")


@register.filter
def timeline(text):
    """A memory's timeline as the release writes it (``school_age (10 years old)``), with
    the life stage in words (``School age (10 years old)``)."""
    if text is None:
        return ""
    return _STAGE_KEYS.sub(lambda match: BY_KEY[match.group(0)].label, str(text))


def _diamonds_key(dimension) -> str:
    # A field (``positivity``) or a label in any casing (``pOsitivity``, ``Positivity``).
    return str(dimension or "").strip().lower()


@register.filter
def diamonds(dimension):
    """A DIAMONDS dimension (field or label) by its name: ``positivity`` → ``Positivity``."""
    return DIAMONDS_LABELS.get(_diamonds_key(dimension), dimension)


@register.filter
def diamonds_definition(dimension):
    """What a DIAMONDS dimension (field or label) means, in a line; ``""`` if unknown."""
    return DIAMONDS_DEFINITIONS.get(_diamonds_key(dimension), "")


@register.inclusion_tag("partials/protocol_ref.html")
def protocol_ref(citation):
    """``{% protocol_ref "App. D.2" %}``: the rule's source behind a "?" toggle, so the
    page's visible text stays in plain words (experts only; never on participant pages).
    A button and a hidden span, not a <details>: it may stand inside a sentence of a <p>
    (a <details> there would end the paragraph). No id: the button shows its own next
    sibling, so a page renders the same bytes on every request (the blinding scans compare
    responses byte for byte) and two citations never share an id."""
    return {"reference": display.paper_reference(citation)}


# One citation of the paper inside free text, as the built-in defaults' notes write them:
# "seed 000 App. B.6, L.3", "App. L.5 and D.1", "App. B.4", "Table 4", "§2.4".
_CITATION = (
    r"(?:seed\s*0\d\d\s+)?"
    r"(?:App(?:endix|\.)\s*[A-L](?:\.\d+)*|§\s*\d+(?:\.\d+)*|Tables?\s+\d+)"
    r"(?:(?:,\s*|\s+and\s+)(?:App\.\s*)?[A-L](?:\.\d+)+)*"
)
_CITED = re.compile(rf"\s*\((?P<paren>{_CITATION})\)|(?P<bare>{_CITATION})")


@register.filter(needs_autoescape=True)
def cited(text, autoescape=True):
    """``{{ version.note|cited }}``: a free text (a note stored with a record, e.g. a
    built-in default's) with each paper citation in it moved behind a "?" toggle, as
    ``{% protocol_ref %}`` does in a template. Stored notes keep their citation (a
    migration finds the built-in version by its note); only the page hides it."""
    if not text:
        return ""
    escape = conditional_escape if autoescape else (lambda s: s)
    parts, last = [], 0
    for match in _CITED.finditer(str(text)):
        citation = match.group("paren") or match.group("bare")
        parts.append(escape(str(text)[last : match.start()]))
        parts.append(" " if match.group("paren") else "")
        parts.append(render_to_string("partials/protocol_ref.html", protocol_ref(citation)).strip())
        last = match.end()
    parts.append(escape(str(text)[last:]))
    return mark_safe("".join(parts))  # noqa: S308 - every piece escaped above or a template's
