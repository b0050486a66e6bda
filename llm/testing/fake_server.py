"""A fake LLM provider: a real HTTP server on loopback speaking the providers' wire formats.

Tests and benchmarks point real clients at it; nothing above the socket is mocked.

Routes (the client appends these to its base URL; `base_url(kind)` gives the base):

    POST /v1/messages                               Anthropic Messages
    POST /v1/chat/completions                       OpenAI Chat Completions
    POST /compat/v1/chat/completions                an OpenAI-compatible endpoint
    POST /v1beta/models/{model}:generateContent     Gemini

What it answers, in order: the route's queue, then the shared queue (`enqueue`), then
the responder callable, then a 500 saying nothing was scripted. A queue item or a
responder's return value is a `Reply` (model output, wrapped in the route's envelope),
a `Fault` (an HTTP-level misbehaviour) or any JSON-able value (shorthand for
`Reply(value=...)`). Every request is recorded as a `ReceivedRequest`.

    with FakeProviderServer(latency_s=0.2) as server:
        server.enqueue(rate_limited(retry_after=1), {"final_decision": "..."})
        config = ProviderConfig(kind="openai", base_url=server.base_url("openai"), ...)

Run standalone (benchmarks, demos) with `python -m llm.testing.fake_server --port 0
--latency-ms 200`; it then answers every request with schema-valid demo JSON.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import email.utils
import json
import logging
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

logger = logging.getLogger("llm.testing.fake_server")

ROUTES = ("anthropic", "openai", "openai_compatible", "gemini")
_GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):generateContent$")
_SCHEMA_MARKER = "It must validate against this JSON Schema:\n"
DEFAULT_HANG_S = 30.0


# --- what to answer ------------------------------------------------------------------


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


# --- what was asked -------------------------------------------------------------------


@dataclass
class ReceivedRequest:
    index: int
    route: str | None
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw_body: str
    body: Any
    model: str | None
    received_at: float
    responded_at: float | None = None
    answered_with: str = ""

    @property
    def system(self) -> str:
        b = self.body if isinstance(self.body, dict) else {}
        if self.route == "anthropic":
            system = b.get("system", "")
            if isinstance(system, list):
                return "".join(x.get("text", "") for x in system if isinstance(x, dict))
            return system or ""
        if self.route == "gemini":
            parts = (b.get("systemInstruction") or {}).get("parts") or []
            return "".join(p.get("text", "") for p in parts)
        return "".join(
            m.get("content") or "" for m in b.get("messages", []) if m.get("role") == "system"
        )

    def turns(self) -> list[tuple[str, str]]:
        """The conversation as (role, text), role in user/assistant, in any format."""
        b = self.body if isinstance(self.body, dict) else {}
        out: list[tuple[str, str]] = []
        if self.route == "gemini":
            for c in b.get("contents", []):
                role = "assistant" if c.get("role") == "model" else "user"
                out.append((role, "".join(p.get("text", "") for p in c.get("parts", []))))
            return out
        for m in b.get("messages", []):
            if m.get("role") == "system":
                continue
            content = m.get("content")
            if isinstance(content, list):
                content = "".join(x.get("text", "") for x in content if isinstance(x, dict))
            out.append((m.get("role", ""), content or ""))
        return out

    def schema(self) -> Any:
        """The JSON Schema the request asked for, wherever the client put it."""
        b = self.body if isinstance(self.body, dict) else {}
        rf = b.get("response_format") or {}
        if rf.get("type") == "json_schema":
            return (rf.get("json_schema") or {}).get("schema")
        gen = b.get("generationConfig") or {}
        for key in ("responseJsonSchema", "responseSchema"):
            if key in gen:
                return gen[key]
        system = self.system
        if _SCHEMA_MARKER in system:
            try:
                return json.loads(system.split(_SCHEMA_MARKER, 1)[1])
            except ValueError:
                return None
        return None


Responder = Callable[[ReceivedRequest], Any]


# --- envelopes ------------------------------------------------------------------------


def _envelope(route: str, req: ReceivedRequest, reply: Reply) -> dict[str, Any]:
    text = reply.model_text()
    tokens_in = reply.tokens_in if reply.tokens_in is not None else max(1, len(req.raw_body) // 4)
    tokens_out = reply.tokens_out if reply.tokens_out is not None else max(1, len(text) // 4)
    model = req.model or "fake-model"
    if route == "anthropic":
        return {
            "id": f"msg_fake_{req.index:06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "max_tokens" if reply.truncated else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    if route == "gemini":
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "MAX_TOKENS" if reply.truncated else "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out,
                "totalTokenCount": tokens_in + tokens_out,
            },
            "modelVersion": model,
        }
    return {
        "id": f"chatcmpl-fake-{req.index:06d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "length" if reply.truncated else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}


def _error_body(route: str | None, status: int, message: str) -> dict[str, Any]:
    if route == "anthropic":
        kind = _ANTHROPIC_ERRORS.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if route == "gemini":
        return {
            "error": {
                "code": status,
                "message": message,
                "status": _GOOGLE_STATUS.get(status, "INTERNAL"),
            }
        }
    return {"error": {"message": message, "type": "fake_error", "code": str(status)}}


# --- the server -----------------------------------------------------------------------


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    allow_reuse_address = True
    fake: FakeProviderServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    # Headers and body go out as separate writes; with Nagle on, the body would wait
    # for the client's delayed ACK (~40 ms) and dominate a 200 ms benchmark.
    disable_nagle_algorithm = True
    # Idle keep-alive connections give up their thread after this long.
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Silenced: the server records every request in ``requests`` instead."""

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, add=False)

    def do_POST(self) -> None:  # noqa: N802
        self.server.fake._handle(self)

    def do_GET(self) -> None:  # noqa: N802
        self.server.fake._send_json(self, 404, _error_body(None, 404, "fake server: POST only"))


class FakeProviderServer:
    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        responder: Responder | None = None,
        api_key: str | None = None,
    ) -> None:
        self.host = host
        self.requested_port = port
        self.latency_s = latency_s
        self.responder = responder
        # When set, a request must carry this key (in its format's header) or get a 401.
        self.api_key = api_key
        self.requests: list[ReceivedRequest] = []
        self._queues: dict[str | None, collections.deque[Any]] = collections.defaultdict(
            collections.deque
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._in_flight = 0
        self.peak_in_flight = 0
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> FakeProviderServer:
        httpd = _HTTPServer((self.host, self.requested_port), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.name = f"fake-provider-{self.port}"
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes hanging and sleeping handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            with self._lock:
                conns = list(self._connections)
            for conn in conns:
                with contextlib.suppress(OSError):  # the peer already closed it
                    conn.shutdown(socket.SHUT_RDWR)
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake server is not running")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def base_url(self, kind: str) -> str:
        """The base URL a `ProviderConfig` of this kind should be given."""
        return {
            "anthropic": self.url,
            "gemini": self.url,
            "openai": f"{self.url}/v1",
            "openai_compatible": f"{self.url}/compat/v1",
        }[kind]

    # -- scripting ---------------------------------------------------------------------

    def enqueue(self, *items: Any, route: str | None = None) -> None:
        """Queue answers, for one route or (route=None) for whichever comes first."""
        if route is not None and route not in ROUTES:
            raise ValueError(f"unknown route {route!r}; one of {ROUTES}")
        with self._lock:
            self._queues[route].extend(items)

    def pending(self, route: str | None = None) -> int:
        with self._lock:
            return len(self._queues[route])

    def reset(self) -> None:
        with self._lock:
            self._queues.clear()
            self.requests.clear()
            self.peak_in_flight = 0

    def requests_for(self, route: str) -> list[ReceivedRequest]:
        with self._lock:
            return [r for r in self.requests if r.route == route]

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    # -- handling ----------------------------------------------------------------------

    def _route(self, path: str) -> tuple[str | None, str | None]:
        if path == "/v1/messages":
            return "anthropic", None
        if path == "/v1/chat/completions":
            return "openai", None
        if path.endswith("/v1/chat/completions"):
            return "openai_compatible", None
        match = _GEMINI_PATH.match(path)
        if match:
            return "gemini", match.group(1)
        return None, None

    def _key_ok(self, route: str, headers: dict[str, str], query: dict[str, list[str]]) -> bool:
        if self.api_key is None:
            return True
        if route == "anthropic":
            return headers.get("x-api-key") == self.api_key
        if route == "gemini":
            return (
                headers.get("x-goog-api-key") == self.api_key
                or query.get("key", [None])[0] == self.api_key
            )
        return headers.get("authorization") == f"Bearer {self.api_key}"

    def _next_item(self, req: ReceivedRequest) -> Any:
        with self._lock:
            for key in (req.route, None):
                queue = self._queues.get(key)
                if queue:
                    return queue.popleft()
        if self.responder is not None:
            return self.responder(req)
        return Fault("status", status=500, body="fake server: nothing scripted for this request")

    def _handle(self, handler: _Handler) -> None:
        received_at = time.monotonic()
        split = urlsplit(handler.path)
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        text = raw.decode("utf-8", errors="replace")
        try:
            body = json.loads(text) if text else None
        except ValueError:
            body = None
        route, model = self._route(split.path)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        query = parse_qs(split.query)
        if model is None and isinstance(body, dict):
            model = body.get("model")
        with self._lock:
            req = ReceivedRequest(
                index=len(self.requests),
                route=route,
                method="POST",
                path=split.path,
                query=query,
                headers=headers,
                raw_body=text,
                body=body,
                model=model,
                received_at=received_at,
            )
            self.requests.append(req)
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            self._answer(handler, req)
        except (BrokenPipeError, ConnectionResetError, OSError):
            handler.close_connection = True
        finally:
            req.responded_at = time.monotonic()
            with self._lock:
                self._in_flight -= 1

    def _answer(self, handler: _Handler, req: ReceivedRequest) -> None:
        route = req.route
        if route is None:
            req.answered_with = "404"
            self._send_json(handler, 404, _error_body(None, 404, f"no route {req.path}"))
            return
        if not self._key_ok(route, req.headers, req.query):
            req.answered_with = "401"
            self._send_json(handler, 401, _error_body(route, 401, "invalid or missing API key"))
            return
        if req.body is None:
            req.answered_with = "400"
            self._send_json(handler, 400, _error_body(route, 400, "request body is not JSON"))
            return
        try:
            item = self._next_item(req)
        except Exception as exc:  # noqa: BLE001 - a broken responder is a 500, not a hang
            logger.exception("fake server responder raised")
            item = Fault("status", status=500, body=f"fake server responder raised: {exc!r}")
        if not isinstance(item, Reply | Fault):
            item = Reply(value=item)
        latency = self.latency_s if item.latency_s is None else item.latency_s
        if latency > 0 and self._stopping.wait(latency):
            handler.close_connection = True
            return
        if isinstance(item, Reply):
            req.answered_with = "reply-truncated" if item.truncated else "reply"
            self._send_json(handler, 200, _envelope(route, req, item))
            return
        req.answered_with = f"fault:{item.kind}"
        if item.kind == "status":
            req.answered_with = f"fault:status:{item.status}"
            headers = {}
            if item.retry_after is not None:
                headers["Retry-After"] = _render_retry_after(item.retry_after)
            message = item.body or f"fake server: injected HTTP {item.status}"
            self._send_json(handler, item.status, _error_body(route, item.status, message), headers)
        elif item.kind == "hang":
            self._stopping.wait(item.seconds)
            handler.close_connection = True
        elif item.kind in ("malformed_body", "raw"):
            self._send_raw(handler, item.status, (item.body or "{").encode())
        elif item.kind == "truncated_body":
            full = json.dumps(_envelope(route, req, Reply(value={"cut": "short"}))).encode()
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(full)))
            handler.end_headers()
            handler.wfile.write(full[: len(full) // 2])
            handler.wfile.flush()
            handler.close_connection = True
        elif item.kind == "disconnect":
            handler.close_connection = True
        else:
            raise ValueError(f"unknown fault kind {item.kind!r}")

    def _send_json(
        self, handler: _Handler, status: int, payload: Any, headers: dict[str, str] | None = None
    ) -> None:
        self._send_raw(handler, status, json.dumps(payload).encode(), headers)

    def _send_raw(
        self, handler: _Handler, status: int, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()


def _render_retry_after(value: str) -> str:
    if value.startswith("date+"):
        return email.utils.formatdate(time.time() + float(value[5:]), usegmt=True)
    return value


def demo_responder(req: ReceivedRequest) -> Any:
    """Schema-valid demo JSON for whatever schema the request carries (CLI default)."""
    from llm.offline_demo import demo_output

    schema = req.schema() or {"type": "object"}
    user = "\n".join(text for role, text in req.turns() if role == "user")
    return Reply(value=demo_output(system=req.system, user=user, schema=schema))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m llm.testing.fake_server",
        description="Serve fake Anthropic/OpenAI/Gemini endpoints on loopback.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    server = FakeProviderServer(
        host=args.host,
        port=args.port,
        latency_s=args.latency_ms / 1000.0,
        responder=demo_responder,
    ).start()
    print(f"fake provider server listening on {server.url}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it like SIGTERM
            done.wait()
    finally:
        server.stop()
        with contextlib.suppress(OSError):  # whoever started us stopped reading
            print(f"fake provider server stopped after {len(server.requests)} requests", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
