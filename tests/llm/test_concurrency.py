"""The per-provider concurrency budget, seen from the server: never more in flight."""

import asyncio
import threading
import time

import pytest

from llm import ConcurrencyLimiter, ErrorKind, JsonCall, arun_many, make_client, run_many
from llm.testing.fake_server import FakeProviderServer

from .helpers import CANDIDATE_SCHEMA, SYSTEM, USER, VALID_CANDIDATE, config_for


@pytest.fixture
def slow_server():
    with FakeProviderServer(latency_s=0.1, responder=lambda req: VALID_CANDIDATE) as s:
        yield s


def calls_for(client, n):
    return [JsonCall(client, SYSTEM, f"{USER} #{i}", CANDIDATE_SCHEMA, tag=i) for i in range(n)]


def test_threads_never_exceed_the_provider_limit(slow_server):
    client = make_client(config_for(slow_server, "anthropic", concurrency=3))
    results = run_many(calls_for(client, 12), concurrency=12)
    client.close()
    assert all(r.ok for r in results)
    assert slow_server.peak_in_flight <= 3
    assert slow_server.peak_in_flight >= 2  # and the calls really did overlap


def test_asyncio_never_exceeds_the_provider_limit(slow_server):
    client = make_client(config_for(slow_server, "gemini", concurrency=3))

    async def run():
        try:
            return await arun_many(calls_for(client, 12), concurrency=12)
        finally:
            await client.aclose()

    results = asyncio.run(run())
    assert all(r.ok for r in results)
    assert 2 <= slow_server.peak_in_flight <= 3


def test_clients_of_one_provider_share_the_budget(slow_server):
    a = make_client(config_for(slow_server, "openai", concurrency=2))
    b = make_client(config_for(slow_server, "openai", concurrency=2, model="another-model"))
    results = run_many(calls_for(a, 6) + calls_for(b, 6), concurrency=12)
    a.close()
    b.close()
    assert all(r.ok for r in results)
    assert slow_server.peak_in_flight <= 2


def test_threads_and_tasks_share_the_budget(slow_server):
    client = make_client(config_for(slow_server, "openai_compatible", concurrency=2))
    thread = threading.Thread(
        target=run_many, args=(calls_for(client, 6),), kwargs={"concurrency": 6}
    )

    async def run():
        try:
            return await arun_many(calls_for(client, 6), concurrency=6)
        finally:
            await client.aclose()

    thread.start()
    results = asyncio.run(run())
    thread.join()
    client.close()
    assert all(r.ok for r in results)
    assert len(slow_server.requests) == 12
    assert slow_server.peak_in_flight <= 2


def test_separate_groups_have_separate_budgets(slow_server):
    a = make_client(config_for(slow_server, "anthropic", concurrency=1, concurrency_group="a"))
    b = make_client(config_for(slow_server, "anthropic", concurrency=1, concurrency_group="b"))
    results = run_many(calls_for(a, 4) + calls_for(b, 4), concurrency=8)
    assert all(r.ok for r in results)
    assert slow_server.peak_in_flight == 2  # one from each group at once


def test_run_many_keeps_order_and_survives_a_raising_call(server):
    server.responder = lambda req: VALID_CANDIDATE
    client = make_client(config_for(server, "anthropic"))
    calls = calls_for(client, 5)
    calls[2] = JsonCall(client, SYSTEM, USER, {"type": "no-such-type"}, tag="broken")
    results = run_many(calls, concurrency=4)
    assert [r.ok for r in results] == [True, True, False, True, True]
    assert results[2].error_kind == ErrorKind.INTERNAL_ERROR
    for i in (0, 1, 3, 4):
        assert results[i].request["messages"][0]["content"][0]["text"].endswith(f"#{i}")


def test_limiter_cancelled_waiter_does_not_leak_a_slot():
    limiter = ConcurrencyLimiter(1)

    async def scenario():
        await limiter.aacquire()
        waiter = asyncio.create_task(limiter.aacquire())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        limiter.release()
        # The slot is free again: this must not block.
        await asyncio.wait_for(limiter.aacquire(), timeout=1)
        limiter.release()

    asyncio.run(scenario())
    assert limiter.in_use == 0


def test_limiter_hands_slots_to_threads_and_counts_the_peak():
    limiter = ConcurrencyLimiter(2)
    inside = []
    lock = threading.Lock()

    def work():
        with limiter.hold():
            with lock:
                inside.append(limiter.in_use)
            time.sleep(0.01)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(inside) <= 2
    assert limiter.peak == 2
    assert limiter.in_use == 0
