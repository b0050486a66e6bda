"""Per-call records: what was asked, what came back, what it cost, what went wrong.

A `CallResult` is what every client returns, success or failure; `as_dict()` is plain
JSON (the pipeline stores it in a JSON column next to the candidate it produced).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# Raw bodies are kept whole in the final record but capped per attempt, so a call that
# retried many times cannot grow a record without bound.
ATTEMPT_RAW_LIMIT = 20_000


class ErrorKind(StrEnum):
    # transport
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION_ERROR = "connection_error"
    TRUNCATED_BODY = "truncated_body"
    MALFORMED_RESPONSE = "malformed_response"
    CLIENT_ERROR = "client_error"
    # model output
    OUTPUT_TRUNCATED = "output_truncated"
    INVALID_JSON = "invalid_json"
    SCHEMA_INVALID = "schema_invalid"
    REFUSED = "refused"
    # anything else caught by run_many so a batch is never lost
    INTERNAL_ERROR = "internal_error"


TRANSPORT_RETRYABLE = frozenset(
    {
        ErrorKind.RATE_LIMITED,
        ErrorKind.SERVER_ERROR,
        ErrorKind.TIMEOUT,
        ErrorKind.CONNECTION_ERROR,
        ErrorKind.TRUNCATED_BODY,
        ErrorKind.MALFORMED_RESPONSE,
    }
)
# Output failures worth another round with the error appended to the conversation.
OUTPUT_RETRYABLE = frozenset(
    {ErrorKind.OUTPUT_TRUNCATED, ErrorKind.INVALID_JSON, ErrorKind.SCHEMA_INVALID}
)


def prompt_hash(system: str, user: str, schema: Any) -> str:
    """sha256 over the canonical JSON of system, user and schema.

    Canonical (sorted keys, no whitespace) so the same prompt hashes the same in every
    process; the pipeline uses it to find earlier calls for an identical prompt.
    """
    payload = json.dumps(
        {"system": system, "user": user, "schema": schema},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass
class AttemptRecord:
    """One HTTP request (or, for the demo provider, one local generation)."""

    round: int
    try_number: int
    status_code: int | None = None
    latency_s: float = 0.0
    error_kind: str | None = None
    error_message: str | None = None
    retry_after_s: float | None = None
    backoff_s: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    finish_reason: str | None = None
    raw_response: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class CallResult:
    provider: str
    model: str
    prompt_hash: str
    ok: bool = False
    parsed: Any = None
    text: str | None = None
    raw_response: str | None = None
    request: dict[str, Any] | None = None
    endpoint: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    attempt_count: int = 0
    rounds: int = 0
    finish_reason: str | None = None
    error_kind: str | None = None
    error_message: str | None = None
    started_at: str = ""
    demo: bool = False
    attempts: list[AttemptRecord] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["attempts"] = [a.as_dict() for a in self.attempts]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CallResult:
        data = dict(data)
        attempts = [AttemptRecord(**a) for a in data.pop("attempts", [])]
        return cls(**data, attempts=attempts)

    @property
    def failure_reason(self) -> str | None:
        if self.ok:
            return None
        return f"{self.error_kind}: {self.error_message}"
