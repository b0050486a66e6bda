"""How close does memory generation get to the provider's own limit, and what does the
platform itself cost per memory?

The full corpus (seed 000 App. B.5, issue #19 "Scale and speed"): 11 characters × 1,000
memories, each memory one call to the fake provider server (in this process, on
loopback) answering after a fixed latency (2 s: a fast real provider) with a valid
memory for the slot it is asked about. The run goes through the platform's own path:
``run_create``/``run_start``, a real ``celery worker --pool threads --concurrency 16``
process taking ``execute_memory_batch`` tasks from Redis, every call recorded and every
memory stored in PostgreSQL (a fresh database ``heartbench_memgenbench``).

Printed:
- throughput over the ideal, concurrency ÷ latency memories per second (bar 0.8);
- the worker's CPU seconds per 1,000 memories (its process time: the provider's
  latency is spent sleeping, so this is the platform's parse, validate and store);
- the worker's peak resident memory;
- database statements per batch (counted in the worker by an execute wrapper on every
  connection).

    DJANGO_SETTINGS_MODULE=heartbench_site.settings.test DATABASE_URL=postgres://... \\
    CELERY_BROKER_URL=redis://... .venv/bin/python benchmarks/memory_generation.py \\
        [--characters 11] [--memories 1000] [--concurrency 16] [--latency-ms 2000]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "heartbench_memgenbench"
BAR = 0.8
ANCHORS = [("neuroticism", 0.95), ("neuroticism", 0.10), ("conscientiousness", 0.95)]
ANCHORS += [("conscientiousness", 0.10), ("extraversion", 0.95), ("extraversion", 0.10)]
ANCHORS += [("agreeableness", 0.95), ("agreeableness", 0.10), ("openness", 0.95)]
ANCHORS += [("openness", 0.10), (None, 0.5)]


def bench_database_url() -> tuple[str, str]:
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at a PostgreSQL server (see scripts/services.sh)")
    return given, urlunsplit(urlsplit(given)._replace(path=f"/{BENCH_DB}"))


def recreate_database(server_url: str, *, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")


# --- the worker side: `python benchmarks/memory_generation.py --worker STATS_FILE ...` ----


def worker_main(stats_file: str, concurrency: int) -> None:
    """A celery worker whose every database connection counts its statements; the count
    is written to ``stats_file`` at shutdown."""
    import threading

    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    from celery.signals import worker_shutdown
    from django.db.backends.signals import connection_created

    lock = threading.Lock()
    total = {"n": 0}

    def count(execute, sql, params, many, context):
        with lock:
            total["n"] += 1
        return execute(sql, params, many, context)

    def install(sender, connection, **kwargs):
        if count not in connection.execute_wrappers:
            connection.execute_wrappers.append(count)

    connection_created.connect(install, weak=False)

    @worker_shutdown.connect(weak=False)
    def dump(**kwargs):
        Path(stats_file).write_text(json.dumps({"statements": total["n"]}))

    from heartbench_site.celery import app

    app.worker_main(
        [
            "worker",
            "--pool=threads",
            f"--concurrency={concurrency}",
            "--loglevel=WARNING",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"memgenbench-{os.getpid()}@%h",
        ]
    )


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- the driver ----------------------------------------------------------------------------


def responder(req):
    """A valid memory for the slot the request names (its fixed user-prompt lines)."""
    import re

    user = next(text for role, text in req.turns() if role == "user")
    age = int(re.search(r"^Target age: (\d+)$", user, re.M).group(1))
    stage = re.search(r"^Life-stage bin: (.+)$", user, re.M).group(1)
    tier = re.search(r"^Intensity tier: ([ABCD])$", user, re.M).group(1)
    domain = re.search(r"^Domain: (.+)$", user, re.M).group(1)
    n = len(req.body.get("messages", [])) + int(time.monotonic_ns() % 1_000_000)
    return {
        "id": "bench",
        "timeline": f"{stage.lower()} ({age} years old)",
        "context": f"A {domain} scene at {age}, number {n}, rain on the windows.",
        "content_summary": f"At {age} something in {domain} went wrong and I handled it.",
        "content_full": ('"Are you coming?" she asked. My heart pounded. I stayed. ' * 60),
        "triggers": ["rain", "a question", "waiting", domain],
        "psych_conclusion": "A schema of conditional acceptance is confirmed by the episode.",
        "behavior_policy": "Slow down, check twice and ask someone trusted before acting.",
        "emotion_signature": {
            "primary": "anxiety",
            "secondary": "relief",
            "intensity": {"A": 0.9, "B": 0.7, "C": 0.4, "D": 0.2}[tier],
        },
        "relevance_tags": ["decision", "approval", "worry", domain],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=11)
    parser.add_argument("--memories", type=int, default=1000, help="per character")
    parser.add_argument("--concurrency", type=int, default=16, help="batches (calls) in flight")
    parser.add_argument("--latency-ms", type=float, default=2000.0)
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument(
        "--worker", nargs=2, metavar=("STATS_FILE", "CONCURRENCY"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.worker:
        worker_main(args.worker[0], int(args.worker[1]))
        return
    if not 1 <= args.characters <= len(ANCHORS):
        sys.exit(f"--characters must be between 1 and {len(ANCHORS)}")

    server_url, bench_url = bench_database_url()
    recreate_database(server_url)
    os.environ["DATABASE_URL"] = bench_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.test")
    sys.path.insert(0, str(ROOT))
    try:
        run_benchmark(args)
    finally:
        if not args.keep_database:
            recreate_database(server_url, drop_only=True)


def setup_plans(args) -> list[int]:
    from django.utils import timezone

    from annotation.corpus.models import Character, ProfileVersion
    from annotation.memory_generation import quota
    from annotation.memory_generation.models import MemoryPlan, QuotaWeights

    weights = QuotaWeights.objects.create(number=1, weights=quota.default_weights())
    plan_ids = []
    for n, (trait, score) in enumerate(ANCHORS[: args.characters], start=1):
        character = Character.objects.create(key=f"CHAR_{n:02d}")
        scores = dict.fromkeys(
            ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"),
            0.5 if trait is None else 0.45,
        )
        if trait:
            scores[trait] = score
        profile = ProfileVersion.objects.create(
            character=character,
            number=1,
            construction_label=f"benchmark character {n}",
            occupation="Archivist",
            description="A benchmark stand-in.",
            self_value_logic="Check twice.",
            core_patterns=[f"pattern {i}" for i in range(1, 9)],
            frozen_at=timezone.now(),
            **scores,
        )
        plan = MemoryPlan.objects.create(
            character=character,
            profile_version=profile,
            weights=weights,
            accepted=0,
            existing=[0] * quota.SEGMENT_COUNT,
            quotas=quota.allocate(args.memories, weights.weights),
        )
        plan_ids.append(plan.pk)
    return plan_ids


def run_benchmark(args) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.memory_generation.models import GeneratedMemory, MemoryBatch, MemoryRun
    from annotation.memory_generation.services.runs import run_create, run_start
    from llm.testing.fake_server import FakeProviderServer

    call_command("migrate", verbosity=0)
    server = FakeProviderServer(latency_s=args.latency_ms / 1000, responder=responder).start()
    env = {
        "HEARTBENCH_MEMORY_KIND": "anthropic",
        "HEARTBENCH_MEMORY_BASE_URL": server.base_url("anthropic"),
        "HEARTBENCH_MEMORY_MODEL": "bench-memory-writer",
        "HEARTBENCH_MEMORY_CONCURRENCY": str(args.concurrency),
        "HEARTBENCH_MEMORY_TIMEOUT": "60",
    }
    os.environ.update(env)
    stats = Path(tempfile.mkstemp(prefix="memgenbench-", suffix=".json")[1])
    worker = subprocess.Popen(
        [sys.executable, __file__, "--worker", str(stats), str(args.concurrency)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        plan_ids = setup_plans(args)
        run = run_create(user=None, plan_ids=plan_ids, concurrency=args.concurrency, note="bench")
        batches = MemoryBatch.objects.filter(run=run).count()
        time.sleep(8)  # the worker boots (Django, Celery) before the clock starts
        if worker.poll() is not None:
            sys.exit(f"the worker exited early:\n{worker.stdout.read()}")
        cpu_before = proc_cpu_seconds(worker.pid)
        print(
            f"run {run.pk}: {args.characters} characters x {args.memories} memories in "
            f"{batches} batches; fake provider at {args.latency_ms:.0f} ms per call; "
            f"celery worker --pool threads --concurrency {args.concurrency}; "
            f"{os.cpu_count()} CPUs shared with PostgreSQL, Redis and the fake server"
        )
        started = time.perf_counter()
        run_start(run_id=run.pk, user=None)
        final = (
            MemoryRun.Status.FINISHED,
            MemoryRun.Status.FINISHED_WITH_FAILURES,
            MemoryRun.Status.CANCELLED,
        )
        while True:
            run.refresh_from_db()
            if run.status in final:
                break
            if worker.poll() is not None:
                sys.exit(f"the worker died:\n{worker.stdout.read()}")
            time.sleep(0.25)
        elapsed = time.perf_counter() - started
        cpu = proc_cpu_seconds(worker.pid) - cpu_before
        peak_mb = proc_peak_rss_mb(worker.pid)
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        server.stop()
    statements = json.loads(stats.read_text() or "{}").get("statements", 0)
    stats.unlink(missing_ok=True)
    memories = GeneratedMemory.objects.filter(batch__run=run).count()
    ideal = args.concurrency / (args.latency_ms / 1000)
    achieved = memories / elapsed
    ratio = achieved / ideal
    print(f"run status: {run.status}; memories stored: {memories}; {elapsed:.1f} s")
    print(f"achieved {achieved:.2f} memories/s; ideal {ideal:.2f} (concurrency / latency)")
    print(f"ratio achieved / ideal: {ratio:.2f} (bar {BAR}: {'met' if ratio >= BAR else 'MISSED'})")
    print(f"worker CPU: {cpu:.1f} s, {1000 * cpu / max(memories, 1):.1f} s per 1,000 memories")
    print(f"worker peak RSS: {peak_mb:.0f} MB")
    print(f"database statements: {statements}, {statements / max(batches, 1):.0f} per batch")
    connection.close()


if __name__ == "__main__":
    main()
