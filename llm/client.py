"""Provider clients: one interface, `complete_json` (threads) and `acomplete_json` (asyncio).

A call is up to `max_attempts` structured-output *rounds*; each round is one model
request that may take up to `config.max_retries + 1` HTTP tries (429, 5xx, timeouts,
broken connections and bodies, with full-jitter backoff honouring Retry-After). A round
whose text is not valid JSON, does not match the schema or was cut at the token limit
appends the reply and the problem to the conversation and asks again. Whatever still
fails comes back as `CallResult(ok=False, error_kind=..., error_message=...)`: provider
trouble never raises. A schema that is itself invalid raises `jsonschema.SchemaError`
at once, because that is a bug in the caller, not bad luck with the provider.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
import threading
import time
import weakref
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import httpx

from . import wire
from .config import ProviderConfig, ProviderKind
from .records import (
    ATTEMPT_RAW_LIMIT,
    OUTPUT_RETRYABLE,
    TRANSPORT_RETRYABLE,
    AttemptRecord,
    CallResult,
    ErrorKind,
    prompt_hash,
)
from .structured import (
    OutputProblem,
    SchemaValidator,
    feedback_message,
    parse_and_validate,
    schema_instruction,
)
from .transport import full_jitter_backoff, limiter_for, retry_after_from_response

logger = logging.getLogger("llm")

DEFAULT_MAX_ATTEMPTS = 3
EMPTY_REPLY_PLACEHOLDER = "(empty reply)"
ASYNC_SHARD_SIZE = 16
_LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


@runtime_checkable
class JSONCompletionClient(Protocol):
    config: ProviderConfig

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        instruct_schema: bool = True,
    ) -> CallResult: ...

    async def acomplete_json(
        self,
        *,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        instruct_schema: bool = True,
    ) -> CallResult: ...


@functools.lru_cache(maxsize=256)
def _validator_for(schema_json: str) -> SchemaValidator:
    return SchemaValidator(json.loads(schema_json))


def validator_for_schema(schema: Any) -> SchemaValidator:
    return _validator_for(json.dumps(schema, sort_keys=True))


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


class _Outcome:
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


class _CallState:
    """The conversation, the record and the bookkeeping of one complete_json call."""

    def __init__(
        self,
        client: ProviderClient,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int,
        instruct_schema: bool,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.client = client
        self.config = client.config
        self.schema = schema
        self.validator = validator_for_schema(schema)
        self.max_attempts = max_attempts
        self.system = f"{system}\n\n{schema_instruction(schema)}" if instruct_schema else system
        self.turns: list[dict[str, str]] = [{"role": "user", "text": user}]
        self.started = time.monotonic()
        self.result = CallResult(
            provider=self.config.kind.value,
            model=self.config.model,
            prompt_hash=prompt_hash(system, user, schema),
            started_at=_now_iso(),
        )

    def request(self) -> wire.HttpRequest:
        req = wire.build_request(self.config, self.system, self.turns, self.schema)
        self.result.request = req.body
        self.result.endpoint = req.url
        return req

    def record(self, round_no: int, try_no: int, outcome: _Outcome) -> AttemptRecord:
        raw = outcome.raw
        if raw is not None and len(raw) > ATTEMPT_RAW_LIMIT:
            raw = raw[:ATTEMPT_RAW_LIMIT] + "...[cut]"
        attempt = AttemptRecord(
            round=round_no,
            try_number=try_no,
            status_code=outcome.status,
            latency_s=round(outcome.latency, 6),
            error_kind=outcome.error_kind.value if outcome.error_kind else None,
            error_message=outcome.error_message,
            retry_after_s=outcome.retry_after,
            raw_response=raw,
        )
        if outcome.reply is not None:
            attempt.tokens_in = outcome.reply.tokens_in
            attempt.tokens_out = outcome.reply.tokens_out
            attempt.finish_reason = outcome.reply.finish_reason
            self.result.tokens_in += outcome.reply.tokens_in
            self.result.tokens_out += outcome.reply.tokens_out
        self.result.attempts.append(attempt)
        self.result.attempt_count = len(self.result.attempts)
        self.result.raw_response = outcome.raw
        return attempt

    def backoff(self, retry_number: int, outcome: _Outcome) -> float | None:
        """Seconds to sleep before the next try, or None when waiting is pointless."""
        jitter = full_jitter_backoff(
            retry_number,
            base=self.config.backoff_base,
            cap=self.config.backoff_cap,
            rng=self.client.rng,
        )
        if outcome.retry_after is None:
            return jitter
        if outcome.retry_after > self.config.retry_after_max:
            return None
        # Never earlier than the provider asked; a little jitter on top spreads the herd.
        return outcome.retry_after + min(jitter, self.config.backoff_base)

    def transport_failure(self, outcome: _Outcome, reason: str | None = None) -> CallResult:
        return self.finish(
            ok=False,
            error_kind=outcome.error_kind or ErrorKind.INTERNAL_ERROR,
            error_message=reason or outcome.error_message,
        )

    def judge(self, reply: wire.ModelReply) -> tuple[Any, OutputProblem | None]:
        try:
            return parse_and_validate(reply.text, self.validator), None
        except OutputProblem as problem:
            if reply.truncated:
                return None, OutputProblem(ErrorKind.OUTPUT_TRUNCATED, problem.message)
            return None, problem

    def ask_again(self, reply: wire.ModelReply, problem: OutputProblem) -> None:
        self.turns.append({"role": "assistant", "text": reply.text or EMPTY_REPLY_PLACEHOLDER})
        self.turns.append(
            {
                "role": "user",
                "text": feedback_message(
                    problem.kind, problem.message, max_tokens=self.config.max_tokens
                ),
            }
        )

    def finish(
        self,
        *,
        ok: bool,
        parsed: Any = None,
        reply: wire.ModelReply | None = None,
        error_kind: ErrorKind | None = None,
        error_message: str | None = None,
    ) -> CallResult:
        r = self.result
        r.ok = ok
        r.parsed = parsed
        if reply is not None:
            r.text = reply.text
            r.finish_reason = reply.finish_reason
        r.error_kind = error_kind.value if error_kind else None
        r.error_message = self.client.redact(error_message) if error_message else None
        r.latency_s = round(time.monotonic() - self.started, 6)
        log = logger.info if ok else logger.warning
        log(
            "llm call %s %s prompt=%s ok=%s rounds=%d tries=%d tokens=%d/%d%s",
            r.provider,
            r.model,
            r.prompt_hash[:12],
            ok,
            r.rounds,
            r.attempt_count,
            r.tokens_in,
            r.tokens_out,
            f" error={r.error_kind}: {r.error_message}" if not ok else "",
        )
        return r


class _AsyncShards:
    """Several small AsyncClients instead of one large one, for one event loop.

    httpcore's async pool walks every connection for every queued request, so one pool
    of 100 connections spends more time on bookkeeping than on I/O at that size (a 0.5
    throughput ratio at 96 concurrent 200 ms calls). Pools of ASYNC_SHARD_SIZE keep that
    walk short; each request takes the least-busy shard, so no shard queues while
    another has room.
    """

    def __init__(self, limit: int, timeout: httpx.Timeout, trust_env: bool) -> None:
        count = max(1, -(-limit // ASYNC_SHARD_SIZE))
        # Slack so that the least-busy shard always has a free connection.
        per_shard = -(-limit // count) + 2
        limits = httpx.Limits(max_connections=per_shard, max_keepalive_connections=per_shard)
        self._clients = [
            httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=trust_env)
            for _ in range(count)
        ]
        self._busy = [0] * count

    @asynccontextmanager
    async def lease(self):
        index = min(range(len(self._busy)), key=self._busy.__getitem__)
        self._busy[index] += 1
        try:
            yield self._clients[index]
        finally:
            self._busy[index] -= 1

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()


class ProviderClient:
    """A client for one provider config. Thread-safe; usable from many asyncio loops."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        rng: random.Random | None = None,
        trust_env: bool | None = None,
    ) -> None:
        if config.kind is ProviderKind.OFFLINE_DEMO:
            raise ValueError("offline_demo is served by llm.offline_demo.OfflineDemoClient")
        self.config = config
        self.rng = rng or random.Random()
        self.limiter = limiter_for(config.limiter_key, config.concurrency)
        if self.limiter.limit != config.concurrency:
            logger.warning(
                "llm concurrency group %s already exists with limit %d; keeping it (asked %d)",
                config.limiter_key,
                self.limiter.limit,
                config.concurrency,
            )
        host = urlsplit(config.base_url).hostname or ""
        # A loopback endpoint (fake server, local vLLM) must not be sent through a proxy.
        self._trust_env = (host not in _LOOPBACK_HOSTS) if trust_env is None else trust_env
        pool = self.limiter.limit + 4
        self._limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
        self._timeout = httpx.Timeout(self.config.timeout)
        self._http = httpx.Client(
            timeout=self._timeout, limits=self._limits, trust_env=self._trust_env
        )
        self._async_pools: weakref.WeakKeyDictionary[Any, _AsyncShards] = (
            weakref.WeakKeyDictionary()
        )
        self._async_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config!r})"

    # -- housekeeping ------------------------------------------------------------------

    def close(self) -> None:
        self._http.close()

    async def aclose(self) -> None:
        """Close this event loop's async HTTP clients."""
        loop = asyncio.get_running_loop()
        with self._async_lock:
            shards = self._async_pools.pop(loop, None)
        if shards is not None:
            await shards.aclose()

    def __enter__(self) -> ProviderClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _async_shards(self) -> _AsyncShards:
        # AsyncClients belong to the loop that first used them.
        loop = asyncio.get_running_loop()
        with self._async_lock:
            shards = self._async_pools.get(loop)
            if shards is None:
                shards = _AsyncShards(self.limiter.limit, self._timeout, self._trust_env)
                self._async_pools[loop] = shards
            return shards

    def redact(self, text: str | None) -> str | None:
        key = self.config.api_key.reveal()
        if text and key:
            text = text.replace(key, "***")
        return text

    # -- one HTTP try ------------------------------------------------------------------

    def _scrub(self, out: _Outcome) -> _Outcome:
        # Provider error bodies may quote the key back; nothing leaves here with it.
        out.raw = self.redact(out.raw)
        out.error_message = self.redact(out.error_message)
        return out

    def _classify(self, status: int, headers: httpx.Headers, body: bytes, out: _Outcome) -> None:
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
            out.error_message = f"HTTP {status}{_provider_message(text)}"
            return
        if status >= 400:
            out.error_kind = ErrorKind.CLIENT_ERROR
            out.error_message = f"HTTP {status}{_provider_message(text)}"
            return
        try:
            data = json.loads(text)
        except ValueError as exc:
            out.error_kind = ErrorKind.MALFORMED_RESPONSE
            out.error_message = f"HTTP {status} body is not JSON ({exc})"
            return
        try:
            out.reply = wire.read_reply(self.config.kind, data)
        except wire.Refusal as exc:
            out.error_kind = ErrorKind.REFUSED
            out.error_message = str(exc)
        except (wire.WireError, AttributeError, TypeError, KeyError, IndexError) as exc:
            out.error_kind = ErrorKind.MALFORMED_RESPONSE
            out.error_message = f"unexpected reply shape: {exc}"

    def _exception(self, exc: Exception, out: _Outcome, *, reading_body: bool) -> None:
        if isinstance(exc, httpx.TimeoutException):
            out.error_kind = ErrorKind.TIMEOUT
            out.error_message = f"{type(exc).__name__} after {self.config.timeout}s"
        elif reading_body and isinstance(exc, httpx.TransportError):
            out.error_kind = ErrorKind.TRUNCATED_BODY
            out.error_message = f"response body cut short ({type(exc).__name__}: {exc})"
        elif isinstance(exc, httpx.TransportError):
            out.error_kind = ErrorKind.CONNECTION_ERROR
            out.error_message = f"{type(exc).__name__}: {exc}"
        else:
            raise exc

    def _send(self, req: wire.HttpRequest) -> _Outcome:
        out = _Outcome()
        headers = dict(self.config.extra_headers) | req.headers
        with self.limiter.hold():
            started = time.monotonic()
            response = None
            try:
                response = self._http.send(
                    self._http.build_request("POST", req.url, json=req.body, headers=headers),
                    stream=True,
                )
                try:
                    body = response.read()
                except Exception as exc:  # noqa: BLE001 - classified or re-raised
                    self._exception(exc, out, reading_body=True)
                    return self._scrub(out)
                self._classify(response.status_code, response.headers, body, out)
            except Exception as exc:  # noqa: BLE001
                if out.error_kind is None:
                    self._exception(exc, out, reading_body=False)
            finally:
                if response is not None:
                    response.close()
                out.latency = time.monotonic() - started
        return self._scrub(out)

    async def _asend(self, req: wire.HttpRequest) -> _Outcome:
        out = _Outcome()
        headers = dict(self.config.extra_headers) | req.headers
        shards = self._async_shards()
        async with self.limiter.ahold(), shards.lease() as http:
            started = time.monotonic()
            response = None
            try:
                response = await http.send(
                    http.build_request("POST", req.url, json=req.body, headers=headers),
                    stream=True,
                )
                try:
                    body = await response.aread()
                except Exception as exc:  # noqa: BLE001
                    self._exception(exc, out, reading_body=True)
                    return self._scrub(out)
                self._classify(response.status_code, response.headers, body, out)
            except Exception as exc:  # noqa: BLE001
                if out.error_kind is None:
                    self._exception(exc, out, reading_body=False)
            finally:
                if response is not None:
                    await response.aclose()
                out.latency = time.monotonic() - started
        return self._scrub(out)

    # -- the call ----------------------------------------------------------------------

    def _after_try(
        self, state: _CallState, round_no: int, try_no: int, out: _Outcome
    ) -> tuple[str, float | CallResult | None]:
        """Decide after one HTTP try: ("reply", None) | ("sleep", s) | ("done", result)."""
        attempt = state.record(round_no, try_no, out)
        if out.error_kind is None:
            return "reply", None
        if out.error_kind not in TRANSPORT_RETRYABLE:
            return "done", state.transport_failure(out)
        if try_no > self.config.max_retries:
            return "done", state.transport_failure(
                out, f"{out.error_message} (gave up after {try_no} tries)"
            )
        delay = state.backoff(try_no - 1, out)
        if delay is None:
            return "done", state.transport_failure(
                out,
                f"{out.error_message}; Retry-After {out.retry_after:.0f}s exceeds the "
                f"{self.config.retry_after_max:.0f}s this client waits",
            )
        attempt.backoff_s = round(delay, 6)
        logger.info(
            "llm %s %s round %d try %d: %s (%s); retrying in %.2fs",
            self.config.kind.value,
            self.config.model,
            round_no,
            try_no,
            out.error_kind.value,
            out.error_message,
            delay,
        )
        return "sleep", delay

    def _after_reply(
        self, state: _CallState, round_no: int, reply: wire.ModelReply
    ) -> CallResult | None:
        parsed, problem = state.judge(reply)
        if problem is None:
            return state.finish(ok=True, parsed=parsed, reply=reply)
        attempt = state.result.attempts[-1]
        attempt.error_kind = problem.kind.value
        attempt.error_message = problem.message
        if problem.kind not in OUTPUT_RETRYABLE or round_no >= state.max_attempts:
            suffix = f" (after {round_no} rounds)" if round_no > 1 else ""
            return state.finish(
                ok=False,
                reply=reply,
                error_kind=problem.kind,
                error_message=problem.message + suffix,
            )
        logger.info(
            "llm %s %s round %d: %s (%s); asking again",
            self.config.kind.value,
            self.config.model,
            round_no,
            problem.kind.value,
            problem.message,
        )
        state.ask_again(reply, problem)
        return None

    def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        instruct_schema: bool = True,
    ) -> CallResult:
        state = _CallState(self, system, user, schema, max_attempts, instruct_schema)
        for round_no in range(1, max_attempts + 1):
            state.result.rounds = round_no
            req = state.request()
            try_no = 0
            while True:
                try_no += 1
                out = self._send(req)
                action, value = self._after_try(state, round_no, try_no, out)
                if action == "done":
                    return value  # type: ignore[return-value]
                if action == "reply":
                    break
                time.sleep(value)  # type: ignore[arg-type]
            done = self._after_reply(state, round_no, out.reply)  # type: ignore[arg-type]
            if done is not None:
                return done
        raise AssertionError("unreachable: the last round always finishes")

    async def acomplete_json(
        self,
        *,
        system: str,
        user: str,
        schema: Any,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        instruct_schema: bool = True,
    ) -> CallResult:
        state = _CallState(self, system, user, schema, max_attempts, instruct_schema)
        for round_no in range(1, max_attempts + 1):
            state.result.rounds = round_no
            req = state.request()
            try_no = 0
            while True:
                try_no += 1
                out = await self._asend(req)
                action, value = self._after_try(state, round_no, try_no, out)
                if action == "done":
                    return value  # type: ignore[return-value]
                if action == "reply":
                    break
                await asyncio.sleep(value)  # type: ignore[arg-type]
            done = self._after_reply(state, round_no, out.reply)  # type: ignore[arg-type]
            if done is not None:
                return done
        raise AssertionError("unreachable: the last round always finishes")


def _provider_message(text: str) -> str:
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


def make_client(config: ProviderConfig, **kwargs: Any) -> JSONCompletionClient:
    """The client a config selects; the offline demo only when `kind` is offline_demo."""
    if config.kind is ProviderKind.OFFLINE_DEMO:
        from .offline_demo import OfflineDemoClient

        return OfflineDemoClient(config)
    return ProviderClient(config, **kwargs)
