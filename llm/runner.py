"""Run many calls at once and get every result back, in order, failures included.

`run_many` uses a thread pool, `arun_many` asyncio tasks. `concurrency` bounds how many
calls are under way here; each provider's own limiter still bounds what reaches that
provider, so one pool can mix families without overrunning any of them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .client import JSONCompletionClient
from .config import DEFAULT_MAX_ATTEMPTS
from .records import CallResult, ErrorKind, prompt_hash

logger = logging.getLogger("llm")


@dataclass
class JsonCall:
    """One structured-output call, ready to run. `tag` is the caller's, returned untouched."""

    client: JSONCompletionClient
    system: str
    user: str
    schema: Any
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    instruct_schema: bool = True
    tag: Any = field(default=None, compare=False)

    def _kwargs(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "user": self.user,
            "schema": self.schema,
            "max_attempts": self.max_attempts,
            "instruct_schema": self.instruct_schema,
        }

    def run(self) -> CallResult:
        return self.client.complete_json(**self._kwargs())

    async def arun(self) -> CallResult:
        return await self.client.acomplete_json(**self._kwargs())

    def failed(self, exc: BaseException) -> CallResult:
        config = self.client.config
        return CallResult(
            provider=config.kind.value,
            model=config.model,
            prompt_hash=prompt_hash(self.system, self.user, self.schema),
            ok=False,
            error_kind=ErrorKind.INTERNAL_ERROR.value,
            error_message=f"{type(exc).__name__}: {exc}"[:500],
        )


def _guarded(call: JsonCall) -> CallResult:
    try:
        return call.run()
    except Exception as exc:  # noqa: BLE001 - a batch must not lose its other results
        logger.exception("llm call raised; recorded as internal_error")
        return call.failed(exc)


def run_many(calls: Iterable[JsonCall], *, concurrency: int) -> list[CallResult]:
    """Run calls on `concurrency` threads; results in the order of `calls`."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    batch: Sequence[JsonCall] = list(calls)
    if not batch:
        return []
    with ThreadPoolExecutor(
        max_workers=min(concurrency, len(batch)), thread_name_prefix="llm"
    ) as pool:
        return list(pool.map(_guarded, batch))


async def arun_many(calls: Iterable[JsonCall], *, concurrency: int) -> list[CallResult]:
    """Run calls as asyncio tasks, at most `concurrency` at a time; results in order."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    gate = asyncio.Semaphore(concurrency)

    async def one(call: JsonCall) -> CallResult:
        async with gate:
            try:
                return await call.arun()
            except Exception as exc:  # noqa: BLE001
                logger.exception("llm call raised; recorded as internal_error")
                return call.failed(exc)

    return list(await asyncio.gather(*(one(c) for c in calls)))


@dataclass(frozen=True)
class Throughput:
    calls: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds > 0 else 0.0


def timed(fn: Callable[[], list[CallResult]]) -> tuple[list[CallResult], Throughput]:
    started = time.monotonic()
    results = fn()
    return results, Throughput(len(results), time.monotonic() - started)


async def atimed(
    fn: Callable[[], Awaitable[list[CallResult]]],
) -> tuple[list[CallResult], Throughput]:
    started = time.monotonic()
    results = await fn()
    return results, Throughput(len(results), time.monotonic() - started)
