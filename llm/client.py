"""Provider clients: one interface, `complete_json` (threads) and `acomplete_json` (asyncio).

A call is up to `max_attempts` structured-output *rounds*; each round is one model
request that may take up to `config.max_retries + 1` HTTP tries (429, 5xx, timeouts,
broken connections and bodies, with full-jitter backoff honouring Retry-After). A round
whose text is not valid JSON, does not match the schema or was cut at the token limit
appends the reply and the problem to the conversation and asks again. Whatever still
fails comes back as `CallResult(ok=False, error_kind=..., error_message=...)`: provider
trouble never raises. A schema that is itself invalid raises `jsonschema.SchemaError`
at once, because that is a bug in the caller, not bad luck with the provider.

Here: the retrying client (its HTTP tries and rounds). The request each provider gets is
built by `wire`; one call's conversation and record are `conversation.CallState`; one
HTTP try is classified by `outcome`; backoff, Retry-After, the concurrency budget and the
async connection pools are in `transport`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
import weakref
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import httpx

from . import wire
from .config import DEFAULT_MAX_ATTEMPTS, ProviderConfig, ProviderKind
from .conversation import CallState
from .outcome import TryOutcome, classify_exception, classify_response
from .records import OUTPUT_RETRYABLE, TRANSPORT_RETRYABLE, CallResult
from .transport import AsyncShards, limiter_for

logger = logging.getLogger("llm")

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
            raise ValueError("offline_demo is served by llm.demo.client.OfflineDemoClient")
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
        self._async_pools: weakref.WeakKeyDictionary[Any, AsyncShards] = weakref.WeakKeyDictionary()
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

    def _async_shards(self) -> AsyncShards:
        # AsyncClients belong to the loop that first used them.
        loop = asyncio.get_running_loop()
        with self._async_lock:
            shards = self._async_pools.get(loop)
            if shards is None:
                shards = AsyncShards(self.limiter.limit, self._timeout, self._trust_env)
                self._async_pools[loop] = shards
            return shards

    def redact(self, text: str | None) -> str | None:
        key = self.config.api_key.reveal()
        if text and key:
            text = text.replace(key, "***")
        return text

    # -- one HTTP try ------------------------------------------------------------------

    def _scrub(self, out: TryOutcome) -> TryOutcome:
        # Provider error bodies may quote the key back; nothing leaves here with it.
        out.raw = self.redact(out.raw)
        out.error_message = self.redact(out.error_message)
        return out

    def _send(self, req: wire.HttpRequest) -> TryOutcome:
        out = TryOutcome()
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
                    classify_exception(exc, out, timeout=self.config.timeout, reading_body=True)
                    return self._scrub(out)
                classify_response(
                    self.config.kind, response.status_code, response.headers, body, out
                )
            except Exception as exc:  # noqa: BLE001
                if out.error_kind is None:
                    classify_exception(exc, out, timeout=self.config.timeout, reading_body=False)
            finally:
                if response is not None:
                    response.close()
                out.latency = time.monotonic() - started
        return self._scrub(out)

    async def _asend(self, req: wire.HttpRequest) -> TryOutcome:
        out = TryOutcome()
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
                    classify_exception(exc, out, timeout=self.config.timeout, reading_body=True)
                    return self._scrub(out)
                classify_response(
                    self.config.kind, response.status_code, response.headers, body, out
                )
            except Exception as exc:  # noqa: BLE001
                if out.error_kind is None:
                    classify_exception(exc, out, timeout=self.config.timeout, reading_body=False)
            finally:
                if response is not None:
                    await response.aclose()
                out.latency = time.monotonic() - started
        return self._scrub(out)

    # -- the call ----------------------------------------------------------------------

    def _after_try(
        self, state: CallState, round_no: int, try_no: int, out: TryOutcome
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
        self, state: CallState, round_no: int, reply: wire.ModelReply
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
        state = CallState(
            self.config,
            system,
            user,
            schema,
            max_attempts,
            instruct_schema,
            rng=self.rng,
            redact=self.redact,
        )
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
        state = CallState(
            self.config,
            system,
            user,
            schema,
            max_attempts,
            instruct_schema,
            rng=self.rng,
            redact=self.redact,
        )
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


def make_client(config: ProviderConfig, **kwargs: Any) -> JSONCompletionClient:
    """The client a config selects; the offline demo only when `kind` is offline_demo.
    The demo (``llm.demo``: its client and some 2,000 lines of answer text) is imported
    here, when a config asks for it, never by ``import llm``."""
    if config.kind is ProviderKind.OFFLINE_DEMO:
        from .demo.client import OfflineDemoClient

        return OfflineDemoClient(config)
    return ProviderClient(config, **kwargs)
