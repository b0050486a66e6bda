"""One HTTP try of a provider call, classified: the reply, or the `ErrorKind` that says
whether trying again can help (429, 5xx, 408, timeouts, broken connections and bodies)
and a message a person can act on."""

from __future__ import annotations

import json

import httpx

from . import wire
from .config import ProviderKind
from .records import ErrorKind
from .transport import retry_after_from_response


class TryOutcome:
    """What one HTTP try produced, already classified."""

    __slots__ = ("status", "raw", "reply", "error_kind", "error_message", "retry_after", "latency")

    def __init__(self) -> None:
        self.status: int | None = None
        self.raw: str | None = None
        self.reply: wire.ModelReply | None = None
        self.error_kind: ErrorKind | None = None
        self.error_message: str | None = None
        self.retry_after: float | None = None
        self.latency = 0.0


def classify_response(
    kind: ProviderKind, status: int, headers: httpx.Headers, body: bytes, out: TryOutcome
) -> None:
    """Fill ``out`` from one HTTP response: the reply, or the error kind and message."""
    out.status = status
    if status in (401, 403):
        # Auth error bodies can quote part of the key; keep none of it.
        out.raw = f"[withheld: HTTP {status} body]"
        out.error_kind = ErrorKind.CLIENT_ERROR
        out.error_message = f"HTTP {status}: authentication failed (check the API key)"
        return
    text = body.decode("utf-8", errors="replace")
    out.raw = text
    if status == 429 or status >= 500 or status == 408:
        out.error_kind = ErrorKind.RATE_LIMITED if status == 429 else ErrorKind.SERVER_ERROR
        if status == 408:
            out.error_kind = ErrorKind.TIMEOUT
        out.retry_after = retry_after_from_response(headers, body)
        out.error_message = f"HTTP {status}{provider_message(text)}"
        return
    if status >= 400:
        out.error_kind = ErrorKind.CLIENT_ERROR
        out.error_message = f"HTTP {status}{provider_message(text)}"
        return
    try:
        data = json.loads(text)
    except ValueError as exc:
        out.error_kind = ErrorKind.MALFORMED_RESPONSE
        out.error_message = f"HTTP {status} body is not JSON ({exc})"
        return
    try:
        out.reply = wire.read_reply(kind, data)
    except wire.Refusal as exc:
        out.error_kind = ErrorKind.REFUSED
        out.error_message = str(exc)
    except (wire.WireError, AttributeError, TypeError, KeyError, IndexError) as exc:
        out.error_kind = ErrorKind.MALFORMED_RESPONSE
        out.error_message = f"unexpected reply shape: {exc}"


def classify_exception(
    exc: Exception, out: TryOutcome, *, timeout: float, reading_body: bool
) -> None:
    """Fill ``out`` from an exception of one HTTP try; re-raise what is not transport
    trouble (a bug, not bad luck with the provider)."""
    if isinstance(exc, httpx.TimeoutException):
        out.error_kind = ErrorKind.TIMEOUT
        out.error_message = f"{type(exc).__name__} after {timeout}s"
    elif reading_body and isinstance(exc, httpx.TransportError):
        out.error_kind = ErrorKind.TRUNCATED_BODY
        out.error_message = f"response body cut short ({type(exc).__name__}: {exc})"
    elif isinstance(exc, httpx.TransportError):
        out.error_kind = ErrorKind.CONNECTION_ERROR
        out.error_message = f"{type(exc).__name__}: {exc}"
    else:
        raise exc


def provider_message(text: str) -> str:
    """A short ': message' from a provider error body, or ''."""
    try:
        data = json.loads(text)
    except ValueError:
        snippet = text.strip()[:200]
        return f": {snippet}" if snippet else ""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        message = error.get("message") or error.get("type") or ""
    elif isinstance(error, str):
        message = error
    else:
        message = ""
    return f": {str(message)[:200]}" if message else ""
