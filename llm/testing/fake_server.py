"""A fake LLM provider: a real HTTP server on loopback speaking the providers' wire formats.

Tests and benchmarks point real clients at it; nothing above the socket is mocked.

Routes (the client appends these to its base URL; `base_url(kind)` gives the base):

    POST /v1/messages                               Anthropic Messages
    POST /v1/chat/completions                       OpenAI Chat Completions
    POST /compat/v1/chat/completions                an OpenAI-compatible endpoint
    POST /v1beta/models/{model}:generateContent     Gemini
    POST /v1/embeddings, /compat/v1/embeddings      OpenAI-compatible embeddings

What it answers, in order: a repair's fact check calls, from the memory text they carry
(`llm.testing.fact_check`; `fact_checks=False` leaves them to the script), then the
route's queue, then the shared queue (`enqueue`), then the responder callable, then a
500 saying nothing was scripted. A queue item or a
responder's return value is a `Reply` (model output, wrapped in the route's envelope),
a `Fault` (an HTTP-level misbehaviour) or any JSON-able value (shorthand for
`Reply(value=...)`); they and the helpers that script them (`json_reply`,
`rate_limited`, ...) are in `llm.testing.replies`. Every request is recorded as a
`ReceivedRequest` (`llm.testing.provider_formats`, with the routes' envelopes).

The embeddings route reads only its own queue (``route="embeddings"``): a `Fault` there
is injected, a `Reply`'s value or any other item is sent verbatim as the JSON body; with
its queue empty it answers deterministic hashed vectors (`llm.testing.embedding_vectors`),
never the shared queue or the responder, which script chat replies.

    with FakeProviderServer(latency_s=0.2) as server:
        server.enqueue(rate_limited(retry_after=1), {"final_decision": "..."})
        config = ProviderConfig(kind="openai", base_url=server.base_url("openai"), ...)

Run standalone (benchmarks, demos) with `python -m llm.testing.fake_server --port 0
--latency-ms 200 [--seed N] [--flag-share 0.1]`; it then answers every request with
demo JSON of the request's prompt kind (`DemoResponder`, also usable as a responder).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from llm.demo.answers import FLAG_SHARE_VARIABLE, SEED_VARIABLE, DemoSettings
from llm.demo.client import demo_output
from llm.testing.embedding_vectors import embeddings_body
from llm.testing.fact_check import answer as fact_check_answer
from llm.testing.provider_formats import (
    ROUTES,
    ReceivedRequest,
    envelope,
    error_body,
    key_ok,
    route_of,
)
from llm.testing.replies import Fault, Reply, render_retry_after

logger = logging.getLogger("llm.testing.fake_server")

Responder = Callable[[ReceivedRequest], Any]


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
        self.server.fake._send_json(self, 404, error_body(None, 404, "fake server: POST only"))


class FakeProviderServer:
    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_s: float = 0.0,
        responder: Responder | None = None,
        api_key: str | None = None,
        fact_checks: bool = True,
    ) -> None:
        self.host = host
        # A repair's fact check calls are answered from the memory text (before the
        # queues and the responder) unless a test turns this off to script them.
        self.fact_checks = fact_checks
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
            "embeddings": f"{self.url}/v1",
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

    def _next_item(self, req: ReceivedRequest) -> Any:
        if req.route == "embeddings":
            with self._lock:
                queue = self._queues.get("embeddings")
                item = queue.popleft() if queue else None
            if isinstance(item, Fault | Reply):
                return item
            return Reply(value=item if item is not None else embeddings_body(req.body))
        if self.fact_checks:
            checked = fact_check_answer(req)
            if checked is not None:
                return Reply(value=checked)
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
        route, model = route_of(split.path)
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
            self._send_json(handler, 404, error_body(None, 404, f"no route {req.path}"))
            return
        if not key_ok(route, req.headers, req.query, self.api_key):
            req.answered_with = "401"
            self._send_json(handler, 401, error_body(route, 401, "invalid or missing API key"))
            return
        if req.body is None:
            req.answered_with = "400"
            self._send_json(handler, 400, error_body(route, 400, "request body is not JSON"))
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
            payload = item.value if route == "embeddings" else envelope(route, req, item)
            self._send_json(handler, 200, payload)
            return
        req.answered_with = f"fault:{item.kind}"
        if item.kind == "status":
            req.answered_with = f"fault:status:{item.status}"
            headers = {}
            if item.retry_after is not None:
                headers["Retry-After"] = render_retry_after(item.retry_after)
            message = item.body or f"fake server: injected HTTP {item.status}"
            self._send_json(handler, item.status, error_body(route, item.status, message), headers)
        elif item.kind == "hang":
            self._stopping.wait(item.seconds)
            handler.close_connection = True
        elif item.kind in ("malformed_body", "raw"):
            self._send_raw(handler, item.status, (item.body or "{").encode())
        elif item.kind == "truncated_body":
            full = json.dumps(envelope(route, req, Reply(value={"cut": "short"}))).encode()
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


class DemoResponder:
    """Demo JSON for whatever schema the request carries, in the kind of the platform
    prompt it belongs to (`llm.demo.answers`), seeded by the demo seed, the model the
    request names and the prompt. ``seed``/``flag_share`` (the share of D.3.1 screening
    verdicts that flag) default to HEARTBENCH_DEMO_SEED / HEARTBENCH_DEMO_FLAG_SHARE,
    read at each request when not given."""

    def __init__(self, *, seed: int | None = None, flag_share: float | None = None) -> None:
        self.seed = seed
        self.flag_share = flag_share
        DemoSettings.from_env(seed=seed, flag_share=flag_share)  # a bad value fails here

    def __call__(self, req: ReceivedRequest) -> Any:
        schema = req.schema() or {"type": "object"}
        user = "\n".join(text for role, text in req.turns() if role == "user")
        settings = DemoSettings.from_env(seed=self.seed, flag_share=self.flag_share)
        value = demo_output(
            system=req.system,
            user=user,
            schema=schema,
            model=req.model or "fake-model",
            settings=settings,
        )
        return Reply(value=value)


# The CLI's default: schema-valid demo JSON for every request.
demo_responder = DemoResponder()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m llm.testing.fake_server",
        description="Serve fake Anthropic/OpenAI/Gemini endpoints on loopback.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help=f"demo seed: another seed, another dry run (default ${SEED_VARIABLE} or 0)",
    )
    parser.add_argument(
        "--flag-share",
        type=float,
        default=None,
        help="share 0-1 of D.3.1 screening verdicts that flag the item "
        f"(default ${FLAG_SHARE_VARIABLE} or 0.1)",
    )
    args = parser.parse_args(argv)
    try:
        responder = DemoResponder(seed=args.seed, flag_share=args.flag_share)
    except ValueError as error:
        parser.error(str(error))
    server = FakeProviderServer(
        host=args.host,
        port=args.port,
        latency_s=args.latency_ms / 1000.0,
        responder=responder,
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
