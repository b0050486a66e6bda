"""What the fake provider server answers: a `Reply` (model output, wrapped in the route's
envelope) or a `Fault` (an HTTP-level misbehaviour), and the helpers that script them:

    server.enqueue(rate_limited(retry_after=1), json_reply({"final_decision": "..."}))
"""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass
from typing import Any

DEFAULT_HANG_S = 30.0


@dataclass
class Reply:
    """Model output. `value` is dumped as JSON; `text` is sent as the model text verbatim.

    `truncated` marks the output as cut at the token limit in the route's own words
    (stop_reason max_tokens / finish_reason length / finishReason MAX_TOKENS).
    """

    value: Any = None
    text: str | None = None
    truncated: bool = False
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_s: float | None = None

    def model_text(self) -> str:
        if self.text is not None:
            return self.text
        return json.dumps(self.value, ensure_ascii=False)


@dataclass
class Fault:
    """HTTP-level misbehaviour.

    kind: "status" (an error status with the route's error body, optional Retry-After),
    "hang" (say nothing for `seconds`, then drop the connection), "malformed_body"
    (200 with a body that is not JSON), "truncated_body" (Content-Length promises more
    than is sent, then the connection closes), "disconnect" (close without a response),
    "raw" (send `body` verbatim with `status`: an envelope no `Reply` can express).
    """

    kind: str
    status: int = 500
    retry_after: str | None = None
    body: str | None = None
    seconds: float = DEFAULT_HANG_S
    latency_s: float | None = None


def json_reply(value: Any, **kw: Any) -> Reply:
    return Reply(value=value, **kw)


def text_reply(text: str, **kw: Any) -> Reply:
    return Reply(text=text, **kw)


def non_json_reply(text: str = "Sure! Here is what I would do: I would stay.") -> Reply:
    return Reply(text=text)


def truncated_reply(text: str = '{"inner_consciousness": {"summary": "I keep thinking') -> Reply:
    return Reply(text=text, truncated=True)


def http_error(status: int, *, retry_after: str | float | None = None, body: str | None = None):
    return Fault(
        "status",
        status=status,
        retry_after=None if retry_after is None else _fmt_retry_after(retry_after),
        body=body,
    )


def rate_limited(retry_after: float | None = 1) -> Fault:
    """429 with `Retry-After: <seconds>`."""
    return http_error(429, retry_after=retry_after)


def rate_limited_until(seconds_from_now: float) -> Fault:
    """429 with `Retry-After` as an HTTP date, computed when the fault is served."""
    return Fault("status", status=429, retry_after=f"date+{seconds_from_now}")


def server_error(status: int = 500) -> Fault:
    return http_error(status)


def hang(seconds: float = DEFAULT_HANG_S) -> Fault:
    return Fault("hang", seconds=seconds)


def malformed_body(body: str = '{"id": "broken", "choices": [ {"mess') -> Fault:
    return Fault("malformed_body", status=200, body=body)


def raw_body(body: Any, *, status: int = 200) -> Fault:
    """Send `body` as is (JSON-dumped unless it is already a string)."""
    return Fault("raw", status=status, body=body if isinstance(body, str) else json.dumps(body))


def truncated_body() -> Fault:
    return Fault("truncated_body", status=200)


def disconnect() -> Fault:
    return Fault("disconnect")


def _fmt_retry_after(value: str | float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def render_retry_after(value: str) -> str:
    """The Retry-After header of a fault, an HTTP date computed now for "date+<seconds>"."""
    if value.startswith("date+"):
        return email.utils.formatdate(time.time() + float(value[5:]), usegmt=True)
    return value
