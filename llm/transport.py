"""Backoff, Retry-After, the per-provider concurrency budget and the async connection pools.

The budget is one `ConcurrencyLimiter` per provider endpoint per process, shared by
threads and by asyncio tasks alike, so a worker that mixes both still never has more
than `concurrency` requests in flight against one provider.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import email.utils
import json
import random
import re
import threading
import time
from collections.abc import Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx


def full_jitter_backoff(
    retry_number: int, *, base: float, cap: float, rng: random.Random | None = None
) -> float:
    """AWS "full jitter": uniform in [0, min(cap, base * 2**retry_number)]."""
    ceiling = min(cap, base * (2 ** max(retry_number, 0)))
    return (rng or random).uniform(0.0, ceiling)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    with contextlib.suppress(ValueError):  # not delta-seconds: try an HTTP date
        return max(0.0, float(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


_GOOGLE_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def retry_after_from_response(
    headers: Mapping[str, str], body: bytes | str | None = None
) -> float | None:
    """Retry-After, OpenAI's retry-after-ms, or Gemini's google.rpc.RetryInfo in the body."""
    ms = headers.get("retry-after-ms")
    if ms:
        with contextlib.suppress(ValueError):  # unreadable: fall back to Retry-After
            return max(0.0, float(ms) / 1000.0)
    seconds = parse_retry_after(headers.get("retry-after"))
    if seconds is not None:
        return seconds
    if body:
        return _google_retry_delay(body)
    return None


def _google_retry_delay(body: bytes | str) -> float | None:
    try:
        data: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    details = data.get("error", {}).get("details", []) if isinstance(data, dict) else []
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _GOOGLE_DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


class ConcurrencyLimiter:
    """A counting semaphore usable from threads (`hold`) and coroutines (`ahold`).

    Slots are handed over first-come first-served; a released slot goes straight to the
    oldest waiter, thread or task.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._in_use = 0
        self._peak = 0
        self._lock = threading.Lock()
        self._waiters: collections.deque[Any] = collections.deque()

    @property
    def in_use(self) -> int:
        return self._in_use

    @property
    def peak(self) -> int:
        return self._peak

    def _take(self) -> None:
        self._in_use += 1
        self._peak = max(self._peak, self._in_use)

    def acquire(self) -> None:
        with self._lock:
            if self._in_use < self.limit and not self._waiters:
                self._take()
                return
            event = threading.Event()
            self._waiters.append(event)
        event.wait()

    async def aacquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._in_use < self.limit and not self._waiters:
                self._take()
                return
            future: asyncio.Future[None] = loop.create_future()
            waiter = (loop, future)
            self._waiters.append(waiter)
        try:
            await future
        except asyncio.CancelledError:
            with self._lock:
                try:
                    self._waiters.remove(waiter)
                    queued = True
                except ValueError:
                    queued = False
            if not queued and future.done() and not future.cancelled():
                # The slot was handed to us just before the cancellation landed.
                self.release()
            raise

    def release(self) -> None:
        with self._lock:
            while self._waiters:
                waiter = self._waiters.popleft()
                # The slot passes directly to the waiter: _in_use is unchanged.
                if isinstance(waiter, threading.Event):
                    waiter.set()
                    return
                loop, future = waiter
                try:
                    loop.call_soon_threadsafe(self._grant, future)
                    return
                except RuntimeError:
                    continue  # that loop is closed; try the next waiter
            self._in_use -= 1

    def _grant(self, future: asyncio.Future[None]) -> None:
        if future.cancelled():
            self.release()
        else:
            future.set_result(None)

    @contextmanager
    def hold(self):
        self.acquire()
        try:
            yield
        finally:
            self.release()

    @asynccontextmanager
    async def ahold(self):
        await self.aacquire()
        try:
            yield
        finally:
            self.release()


_limiters: dict[str, ConcurrencyLimiter] = {}
_limiters_lock = threading.Lock()


def limiter_for(key: str, limit: int) -> ConcurrencyLimiter:
    """The process-wide limiter for a provider endpoint; the first config's limit wins.

    A later config naming a different limit for the same key does not resize the
    budget (that would silently double it); give it its own `concurrency_group` instead.
    """
    with _limiters_lock:
        limiter = _limiters.get(key)
        if limiter is None:
            limiter = _limiters[key] = ConcurrencyLimiter(limit)
        return limiter


def reset_limiters() -> None:
    """Forget all limiters (tests, or a worker re-reading its settings)."""
    with _limiters_lock:
        _limiters.clear()


#: Connections per async pool (see `AsyncShards`).
ASYNC_SHARD_SIZE = 16


class AsyncShards:
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
