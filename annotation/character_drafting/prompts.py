"""The drafting prompt's text (App. L.2, in the project's own words) and its rendering.
Pure: no Django; the services pass what they read.

A prompt version has three templates (``str.format`` placeholders, ``{{``/``}}`` for a
literal brace):

- system: the drafting rules (no placeholders);
- user: one character's request, ``{char_key}`` and ``{design_brief}`` (the block
  ``design.design_brief`` writes from the design: the required scores, the anchor);
- redraft: appended to the user message when a reviewed profile is drafted again,
  ``{version_number}``, ``{scope}``, ``{current_profile}``, ``{change_requests}`` and
  ``{admin_note}``.

When a draft breaks a rule the schema cannot check, the next attempt's user message is
the first one followed by ``retry_message`` (the problems named, the rejected draft
quoted).
"""

from __future__ import annotations

import json
import string

from annotation.character_drafting.design import HIGH_ANCHOR, LOW_ANCHOR, MODERATE_RANGE
from annotation.character_drafting.profile_schema import CORE_PATTERN_COUNT

PLACEHOLDERS = {
    "system_template": frozenset(),
    "user_template": frozenset({"char_key", "design_brief"}),
    "redraft_template": frozenset(
        {"version_number", "scope", "current_profile", "change_requests", "admin_note"}
    ),
}

_low, _high = MODERATE_RANGE

DEFAULT_SYSTEM = (
    f"""You are a personality psychologist who works with the Big Five (OCEAN) model and \
writes character specifications for a research benchmark of synthetic people. Each \
specification you write becomes the fixed description of one virtual person, from which \
a thousand autobiographical memories will later be written, so every field must be \
concrete enough to steer those memories.

Rules for every profile:
1. Scores. Give an exact score on the 0.0-1.0 scale for each of O, C, E, A and N. The \
request names the scores the design has already fixed; copy those exactly.
2. One extreme. Exactly one trait is the defining extreme: {HIGH_ANCHOR:.2f} for a high \
character or {LOW_ANCHOR:.2f} for a low one. Every other score stays moderate, between \
{_low:.2f} and {_high:.2f}, and varies from trait to trait so that the whole profile reads \
as one coherent person rather than a single trait. (The all-neutral reference character \
is the exception: all five scores are 0.50.)
3. Self-value logic. One sentence stating the principle by which this person makes \
sense of the world and of themselves: the inner rule their choices follow.
4. Core patterns. Exactly {CORE_PATTERN_COUNT} patterns, each a specific behavior someone \
could watch this person do (what they do, in which kind of situation), all of them \
expressions of the defining trait, no two alike. Avoid vague labels, diagnoses and moral \
verdicts.
5. Occupation. A specific job title that fits the defining trait in a realistic way: a \
job such a person would plausibly seek out and keep.
6. Description. Two or three sentences summing up who this person is.
7. Name. An English label for the archetype (it describes the construction; it is not a \
personal name).

"""
    + """Answer with one JSON object with exactly these fields:
{{"char_key": "CHAR_XX", "name": "archetype label", "occupation": "job title", \
"big_five": {{"O": 0.0, "C": 0.0, "E": 0.0, "A": 0.0, "N": 0.0}}, \
"big_five_str": "O=0.00, C=0.00, E=0.00, A=0.00, N=0.00", \
"description": "two or three sentences", "self_value_logic": "one sentence", \
"core_patterns": ["pattern 1: an observable behavior", "...", "pattern 8: ..."]}}
big_five_str repeats the big_five scores as text."""
)

DEFAULT_USER = """Draft the complete profile of this character.

{design_brief}

Use "{char_key}" as char_key."""

DEFAULT_REDRAFT = """This character already has a reviewed profile, version {version_number}:
{current_profile}

The reviewers and the senior expert asked for changes. Draft it again: {scope}
Keep the design's fixed scores. Where a request below asks for something, follow it \
unless it would break a rule above.

Requests to address:
{change_requests}

Note from the administrator: {admin_note}

Answer with the whole profile in the JSON form above, every field present."""

DEFAULT_TEMPLATES = {
    "system_template": DEFAULT_SYSTEM,
    "user_template": DEFAULT_USER,
    "redraft_template": DEFAULT_REDRAFT,
}


def placeholders_in(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def template_problems(name: str, template: str) -> list[str]:
    """What is wrong with one template: unreadable braces, or unknown placeholders."""
    try:
        found = placeholders_in(template)
    except ValueError as error:
        return [
            f"The {name.replace('_', ' ')} has unreadable braces ({error}); "
            "write {{ and }} for a literal brace."
        ]
    unknown = found - PLACEHOLDERS[name]
    if unknown:
        allowed = ", ".join(f"{{{p}}}" for p in sorted(PLACEHOLDERS[name])) or "no placeholders"
        return [
            f"The {name.replace('_', ' ')} uses unknown "
            f"placeholder{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(f'{{{u}}}' for u in sorted(unknown))}; it can use {allowed}."
        ]
    return []


def render(template: str, values: dict) -> str:
    return template.format(**values)


def user_message(
    *,
    user_template: str,
    redraft_template: str,
    char_key: str,
    design_brief: str,
    redraft: dict | None,
) -> str:
    """The user turn of a draft (``redraft`` None) or a redraft (its values)."""
    text = render(user_template, {"char_key": char_key, "design_brief": design_brief})
    if redraft is not None:
        text += "\n\n" + render(redraft_template, redraft)
    return text


def retry_message(first_user: str, *, problems: list[str], rejected: dict) -> str:
    """The user turn of the next attempt after a draft broke the rules."""
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        f"{first_user}\n\nYour previous draft could not be used:\n{listed}\n\n"
        f"The rejected draft was:\n{json.dumps(rejected, ensure_ascii=False, indent=1)}\n\n"
        "Write the profile again with these problems fixed; answer with the whole JSON object."
    )


def change_request_lines(requests: list[dict]) -> str:
    """``requests``: dicts with field_label, passage, concern, suggested_correction."""
    if not requests:
        return "(no open change requests)"
    return "\n".join(
        f"{i}. {r['field_label']}: on the passage “{r['passage']}” the concern is: "
        f"{r['concern']} Suggested correction: {r['suggested_correction']}"
        for i, r in enumerate(requests, start=1)
    )
