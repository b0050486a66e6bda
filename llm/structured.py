"""Structured output: pull JSON out of model text, validate it, explain what is wrong.

The explanation goes back to the model verbatim on the next round, so it names the
JSON path and the rule broken, not a Python traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from .records import ErrorKind
from .schema_check import quick_check

# At most this many schema errors are reported back per round: more is noise.
MAX_REPORTED_SCHEMA_ERRORS = 5

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\r?\n?(.*?)```", re.DOTALL)


class OutputProblem(Exception):
    """The model's text cannot be used; `kind` is an `ErrorKind`, `message` is for the model."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def strip_code_fence(text: str) -> str:
    """Return the body of the first ```json fence if there is one, else the trimmed text."""
    stripped = text.strip()
    match = _FENCE.search(stripped)
    if match:
        return match.group(1).strip()
    if stripped.startswith("```"):
        # An opening fence with no closing one: usually a truncated reply.
        return stripped.split("\n", 1)[1].strip() if "\n" in stripped else ""
    return stripped


def parse_json_text(text: str | None) -> Any:
    if text is None or not text.strip():
        raise OutputProblem(ErrorKind.INVALID_JSON, "the reply was empty")
    body = strip_code_fence(text)
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        raise OutputProblem(
            ErrorKind.INVALID_JSON,
            f"the reply is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
        ) from None


@dataclass(frozen=True)
class SchemaValidator:
    """A compiled validator for one schema; checks the schema itself once, up front.
    A reply the quick check (``schema_check``) accepts is valid without jsonschema's
    walk; any other reply is judged, and its errors worded, by jsonschema."""

    schema: Any

    def __post_init__(self) -> None:
        cls = validator_for(self.schema)
        cls.check_schema(self.schema)
        object.__setattr__(self, "_validator", cls(self.schema))
        object.__setattr__(self, "_quick", quick_check(self.schema))

    def errors(self, instance: Any) -> list[str]:
        quick = self._quick  # type: ignore[attr-defined]
        if quick is not None and quick(instance):
            return []
        validator: jsonschema.protocols.Validator = self._validator  # type: ignore[attr-defined]
        found = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        return [_describe(e) for e in found]

    def validate(self, instance: Any) -> None:
        errors = self.errors(instance)
        if errors:
            shown = errors[:MAX_REPORTED_SCHEMA_ERRORS]
            more = len(errors) - len(shown)
            message = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
            raise OutputProblem(ErrorKind.SCHEMA_INVALID, message)


def _describe(error: jsonschema.ValidationError) -> str:
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    message = error.message
    if len(message) > 300:
        message = message[:300] + "..."
    return f"at {path}: {message}"


def parse_and_validate(text: str | None, validator: SchemaValidator) -> Any:
    value = parse_json_text(text)
    validator.validate(value)
    return value


def schema_instruction(schema: Any) -> str:
    """The paragraph appended to the system prompt when the call asks for it."""
    return (
        "Reply with a single JSON value and nothing else: no prose, no markdown code fence. "
        "It must validate against this JSON Schema:\n"
        + json.dumps(schema, ensure_ascii=False, sort_keys=True)
    )


def feedback_message(kind: ErrorKind, detail: str, *, max_tokens: int) -> str:
    """The user turn appended after a failed round."""
    if kind is ErrorKind.OUTPUT_TRUNCATED:
        return (
            f"Your previous reply was cut off at the output limit of {max_tokens} tokens "
            "before the JSON was complete. Reply again with the complete JSON value only, "
            "written more concisely so that it fits."
        )
    if kind is ErrorKind.INVALID_JSON:
        return (
            f"Your previous reply could not be used: {detail}. Reply again with only the "
            "JSON value, with no prose and no code fence."
        )
    return (
        "Your previous reply was JSON but does not match the required schema: "
        f"{detail}. Reply again with only the corrected JSON value."
    )


def has_nul(value: Any) -> bool:
    """Whether a parsed JSON value holds a NUL character in any string (a key included):
    PostgreSQL text and jsonb cannot store one, so a caller that stores output refuses it."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_nul(v) for v in value)
    return False
