"""Provider-layer throughput against the fake server (issue 4's bar: 0.8 of ideal).

704 (character, scenario) pairs x 3 families = 2112 calls, each answered after 200 ms,
at concurrency C. The ideal is C / latency calls per second; the script prints what was
achieved and the ratio, and the CPU time this process spent per call (the provider
layer alone, to set beside ``benchmarks/generation.py``'s figure for the whole
platform). The fake server runs as a separate process
(`python -m llm.testing.fake_server`) so its threads do not share this process's GIL.

    .venv/bin/python benchmarks/llm_throughput.py [--concurrency 32] [--mode asyncio]
"""

import argparse
import asyncio
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llm import JsonCall, ProviderConfig, arun_many, make_client, run_many  # noqa: E402

PAIRS = 704  # 11 characters x 64 scenarios, the release's pair count for generation
FAMILIES = ("anthropic", "openai", "gemini")
BAR = 0.8
# App. L.5.3 output, as the generation pipeline will ask for it.
CANDIDATE_SCHEMA = {
    "type": "object",
    "properties": {
        "character_id": {"type": "string"},
        "scenario_id": {"type": "string"},
        "inner_consciousness": {
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "emotional_tone": {"type": "string"},
                "core_reasoning": {"type": "string"},
            },
            "required": ["summary", "emotional_tone", "core_reasoning"],
        },
        "final_decision": {"type": "string"},
    },
    "required": ["character_id", "scenario_id", "inner_consciousness", "final_decision"],
}


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llm.testing.fake_server",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    if not match:
        proc.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return proc, match.group(0)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def base_url(url: str, kind: str) -> str:
    return f"{url}/v1" if kind == "openai" else url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=PAIRS)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--mode", choices=["threads", "asyncio"], default="threads")
    args = parser.parse_args()

    proc, url = start_server(args.latency_ms)
    try:
        clients = {
            kind: make_client(
                ProviderConfig(
                    kind=kind,
                    model=f"bench-{kind}",
                    base_url=base_url(url, kind),
                    api_key="bench-not-a-key",
                    concurrency=args.concurrency,
                    timeout=30,
                )
            )
            for kind in FAMILIES
        }
        calls = [
            JsonCall(
                clients[kind],
                "You will fully become the character described below.",
                f"## Who you are\nCHAR_{pair % 11:02d}\n## Scenario\nSCN_{pair // 11:02d}",
                CANDIDATE_SCHEMA,
                tag=(pair, kind),
            )
            for pair in range(args.pairs)
            for kind in FAMILIES
        ]
        # Warm-up: open connections and compile the schema outside the measurement.
        run_many(calls[: args.concurrency], concurrency=args.concurrency)

        started = time.monotonic()
        cpu_before = _cpu_seconds()
        if args.mode == "threads":
            results = run_many(calls, concurrency=args.concurrency)
        else:
            results = asyncio.run(arun_many(calls, concurrency=args.concurrency))
        elapsed = time.monotonic() - started
        cpu = _cpu_seconds() - cpu_before
        for client in clients.values():
            client.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    failed = [r for r in results if not r.ok]
    achieved = len(results) / elapsed
    ideal = args.concurrency / (args.latency_ms / 1000.0)
    ratio = achieved / ideal
    print(
        f"calls: {len(results)} ({args.pairs} pairs x {len(FAMILIES)} families), "
        f"mode {args.mode}, concurrency {args.concurrency}, latency {args.latency_ms:.0f} ms"
    )
    print(f"failed: {len(failed)}")
    print(f"elapsed: {elapsed:.2f} s")
    print(f"achieved: {achieved:.1f} calls/s")
    print(f"ideal (concurrency / latency): {ideal:.1f} calls/s")
    print(f"ratio: {ratio:.3f} (bar {BAR}: {'met' if ratio >= BAR else 'NOT met'})")
    print(f"CPU per call (this process, provider layer only): {1000 * cpu / len(results):.1f} ms")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
