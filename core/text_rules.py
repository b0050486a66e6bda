"""Text a person types: every field has a limit, and one rule for control characters.

Every text field of every form and API request declares its limit with ``max_length``,
taken from the kinds below, so the browser stops typing at the limit and the form, the
serializer and the service refuse the same text with the same message. A service that
takes typed text checks it again with :func:`check_text` (scripts and other callers reach
services without a form).

The control-character rule is one for the whole platform, on PostgreSQL and SQLite
alike: tab, line feed and carriage return are text; every other C0 control character
(NUL included), DEL and the C1 control characters (U+0080 to U+009F, NEL included) are
refused with a message naming the field, never stripped in silence. Drafts that save
themselves follow the same rule: an over-long or NUL-holding draft is refused and the
page says it was not saved.

``docs/lab-admin/security.md`` lists every limit (``manage.py text_limits`` prints the
table and a test holds the guide to it).
"""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator

# --- The kinds of text, in characters ------------------------------------------------------
# A name, label, title, key or other one-line answer.
NAME = 200
# A note, reason, rationale, comment or guidance: a paragraph or a few.
NOTE = 4_000
# A long text a person writes or edits: a profile section, a memory narrative, a
# scenario, a reference response field, an MCQ option.
TEXT = 20_000

CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_character_problem(value: str, *, label: str) -> str | None:
    """The message for the first control character in ``value``, or None."""
    match = CONTROL_CHARACTERS.search(value)
    if match is None:
        return None
    code = ord(match.group())
    name = "NUL" if code == 0 else ("DEL" if code == 0x7F else f"U+{code:04X}")
    return (
        f"{label} contains a control character ({name}) at character {match.start() + 1}; "
        "remove it (only tabs and line breaks are allowed)."
    )


def length_problem(value: str, *, label: str, limit: int) -> str | None:
    if len(value) <= limit:
        return None
    return f"{label} is limited to {limit:,} characters; this one has {len(value):,}."


def text_problem(value, *, label: str, limit: int) -> str | None:
    """What is wrong with typed ``value`` for a field called ``label``, or None."""
    if value is None:
        return None
    value = str(value)
    return length_problem(value, label=label, limit=limit) or control_character_problem(
        value, label=label
    )


def check_text(value, *, label: str, limit: int, error=ValidationError):
    """``value`` if it keeps the rules, else raise ``error`` (the service's own error
    class) with the message naming the field and the limit or the character."""
    problem = text_problem(value, label=label, limit=limit)
    if problem is not None:
        raise error(problem)
    return value


def check_texts(fields: dict, limits: dict, *, labels: dict | None = None, error=ValidationError):
    """:func:`check_text` for each of ``fields`` (name → value) that ``limits`` names."""
    labels = labels or {}
    for name, limit in limits.items():
        if name in fields:
            label = labels.get(name) or name.replace("_", " ").capitalize()
            check_text(fields[name], label=label, limit=limit, error=error)
    return fields


# --- Forms -----------------------------------------------------------------------------------


def field_label(name: str, field) -> str:
    return str(field.label) if field.label else name.replace("_", " ").capitalize()


class TextValidator:
    """A form field's validator for the text rules, with the field's label: the
    length limit and the control characters, in :func:`text_problem`'s words."""

    code = "text_rules"

    def __init__(self, label: str, limit: int | None):
        self.label = label
        self.limit = limit

    def __call__(self, value):
        problem = text_problem(value, label=self.label, limit=self.limit or 10**12)
        if problem is not None:
            raise ValidationError(problem, code=self.code)

    def __eq__(self, other):
        return isinstance(other, TextValidator) and (other.label, other.limit) == (
            self.label,
            self.limit,
        )


# Django's own validators this replaces (same checks, messages without the field's name).
_REPLACED = ("MaxLengthValidator", "ProhibitNullCharactersValidator")


def apply_text_rules(form_fields: dict) -> None:
    """Give every text field of a form (name → field) the text rules, with messages that
    name the field. Idempotent; fields added in a form's ``__init__`` count too."""
    for name, field in form_fields.items():
        if not isinstance(field, forms.CharField):
            continue
        validator = TextValidator(field_label(name, field), field.max_length)
        if validator in field.validators:
            continue
        field.validators = [v for v in field.validators if type(v).__name__ not in _REPLACED] + [
            validator
        ]


class TextRules:
    """Form mixin (first base): the text rules on every text field, at validation."""

    def full_clean(self):
        apply_text_rules(self.fields)
        super().full_clean()


# --- API serializers ---------------------------------------------------------------------


class SerializerTextRules:
    """Serializer mixin (first base): the text rules on every writable text field, with
    the same messages as the forms."""

    # field → label: names a field in its page's form's words without giving the schema a
    # title (the docstring above is every plain serializer's description in the schema).
    text_labels: dict[str, str] = {}

    def get_fields(self):
        from rest_framework import serializers

        fields = super().get_fields()
        for name, field in fields.items():
            if not isinstance(field, serializers.CharField) or field.read_only:
                continue
            label = self.text_labels.get(name) or field_label(name, field)
            limit = field.max_length
            field.validators = [v for v in field.validators if type(v).__name__ not in _REPLACED]
            field.validators.append(_SerializerTextValidator(label, limit))
        return fields


class _SerializerTextValidator(MaxLengthValidator):
    """Replaces the field's own length check; still a ``MaxLengthValidator`` so that the
    OpenAPI schema (drf-spectacular reads validators) documents the limit as
    ``maxLength``."""

    def __init__(self, label: str, limit: int | None):
        super().__init__(limit or 10**12)
        self.label = label
        self.limit = limit

    def __call__(self, value):
        from rest_framework.exceptions import ValidationError as DRFValidationError

        problem = text_problem(value, label=self.label, limit=self.limit or 10**12)
        if problem is not None:
            raise DRFValidationError(problem)
