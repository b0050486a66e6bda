"""How close does a generation run get to the provider's own limit?

A run of 704 pairs (11 synthetic stand-in characters x the release's 64 scenarios) x 3
families against the fake provider server (``python -m llm.testing.fake_server``, a separate
process, ``--latency-ms`` per call, schema-valid demo answers) on a fresh database
``heartbench_genbench``. The units go through the platform's own code path,
``generation_unit_execute`` with every stage, call record and candidate written to
PostgreSQL, driven by ``--processes`` processes of ``--concurrency / --processes``
threads each (what ``celery worker --concurrency`` workers would do, minus the broker).

The figure is achieved HTTP calls per second over the ideal, concurrency / latency
(every slot busy all the time with a call that takes exactly the latency). The bar is
0.8. Beside it: the platform's CPU per call, the user + system CPU time the worker
processes spent over the run (``resource.getrusage``) divided by the HTTP calls (the
fake server and PostgreSQL are not counted). The target is 5 ms or less.

    DJANGO_SETTINGS_MODULE=heartbench_site.settings.test DATABASE_URL=postgres://... \\
        .venv/bin/python benchmarks/generation.py [--concurrency 32] [--latency-ms 200]
"""

import argparse
import multiprocessing
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "heartbench_genbench"
FAMILIES = {"CLAUDE": "anthropic", "GPT": "openai", "GEMINI": "gemini"}
BAR = 0.8
CPU_TARGET_MS = 5.0


def bench_database_url() -> tuple[str, str]:
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at a PostgreSQL server (see scripts/services.sh)")
    parts = urlsplit(given)
    return given, urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate_database(server_url: str, *, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_fake_server(port: int, latency_ms: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llm.testing.fake_server",
            "--port",
            str(port),
            "--latency-ms",
            str(latency_ms),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if "listening" not in line:
        proc.kill()
        sys.exit(f"the fake provider server did not start: {line!r}")
    return proc


def provider_env(port: int, per_process: int) -> dict[str, str]:
    env = {}
    base = f"http://127.0.0.1:{port}"
    for family, kind in FAMILIES.items():
        prefix = f"HEARTBENCH_{family}"
        env[f"{prefix}_KIND"] = kind
        env[f"{prefix}_BASE_URL"] = f"{base}/v1" if kind == "openai" else base
        env[f"{prefix}_MODEL"] = f"bench-{family.lower()}"
        env[f"{prefix}_ACTIVATION_MODEL"] = f"bench-{family.lower()}-activation"
        # The limiter is per process and endpoint; the threads are the real bound.
        env[f"{prefix}_CONCURRENCY"] = str(per_process)
        env[f"{prefix}_TIMEOUT"] = "30"
    return env


def drive(unit_ids: list[int], threads: int) -> None:
    """Execute units on ``threads`` threads, each with its own database connection."""
    from django.db import connection

    from annotation.generation.services.units import generation_unit_execute

    lock = threading.Lock()
    todo = iter(unit_ids)

    def loop():
        try:
            while True:
                with lock:
                    unit_id = next(todo, None)
                if unit_id is None:
                    return
                generation_unit_execute(unit_id=unit_id)
        finally:
            connection.close()

    pool = [threading.Thread(target=loop) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _child(unit_ids, threads, ready, go, cpu):
    ready.set()
    go.wait()
    before = _cpu_seconds()
    try:
        drive(unit_ids, threads)
    finally:
        cpu.put(_cpu_seconds() - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=32, help="calls in flight")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--memories", type=int, default=200, help="per character")
    parser.add_argument("--pairs", type=int, default=704, help="limit the pairs (smoke runs)")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.concurrency % args.processes:
        sys.exit("--concurrency must be a multiple of --processes")
    per_process = args.concurrency // args.processes

    server_url, bench_url = bench_database_url()
    recreate_database(server_url)
    port = free_port()
    server = start_fake_server(port, args.latency_ms)
    os.environ.update(provider_env(port, per_process))
    os.environ["DATABASE_URL"] = bench_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.test")
    sys.path.insert(0, str(ROOT))
    try:
        run_benchmark(args, per_process)
    finally:
        server.terminate()
        server.wait(timeout=10)
        if not args.keep_database:
            recreate_database(server_url, drop_only=True)


def run_benchmark(args, per_process: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Count, Sum
    from django.utils import timezone

    from annotation.corpus.models import Character, ProfileVersion, Scenario
    from annotation.corpus_import.importing import import_files
    from annotation.corpus_import.synthetic import synthetic_characters_json
    from annotation.generation.models import Candidate, GenerationRun, GenerationUnit, LlmCallRecord
    from annotation.generation.services.runs import generation_run_create
    from core.release import find_release_dir

    call_command("migrate", verbosity=0)
    scenarios = (find_release_dir() / "scenarios.json").read_bytes()
    characters = synthetic_characters_json(memories_per_character=args.memories)
    import_files([("characters.json", characters), ("scenarios.json", scenarios)])
    ProfileVersion.objects.update(frozen_at=timezone.now())
    keys = list(Character.objects.values_list("key", flat=True))
    scenario_ids = list(Scenario.objects.values_list("scenario_id", flat=True))
    pairs = [(c, s) for c in keys for s in scenario_ids][: args.pairs]
    chosen_characters = sorted({c for c, _ in pairs})
    chosen_scenarios = sorted({s for _, s in pairs}) if len(pairs) < 704 else None
    run = generation_run_create(
        user=None,
        families=["claude", "gpt", "gemini"],
        characters=chosen_characters,
        scenarios=chosen_scenarios,
        note="benchmark",
        # A synthetic corpus goes through no review or audit: the gates are overridden.
        override_gates=True,
        override_reason="Benchmark over a synthetic corpus (no scenario review, no audit).",
    )
    # The benchmark drives the units itself instead of queuing them on Celery.
    GenerationRun.objects.filter(pk=run.pk).update(
        status=GenerationRun.Status.RUNNING, started_at=timezone.now()
    )
    unit_ids = list(run.units.order_by("pk").values_list("pk", flat=True))
    print(
        f"run {run.pk}: {len(unit_ids) // 3} pairs x 3 families = {len(unit_ids)} units; "
        f"{args.memories} memories per character; fake provider at {args.latency_ms:.0f} ms "
        f"per call; concurrency {args.concurrency} = {args.processes} processes x "
        f"{per_process} threads; {os.cpu_count()} CPUs shared with PostgreSQL and the fake server"
    )
    connection.close()  # children must not share the parent's connection

    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    cpu = ctx.Queue()
    children, readies = [], []
    for i in range(args.processes):
        ready = ctx.Event()
        child = ctx.Process(
            target=_child, args=(unit_ids[i :: args.processes], per_process, ready, go, cpu)
        )
        child.start()
        children.append(child)
        readies.append(ready)
    for ready in readies:
        ready.wait()
    started = time.perf_counter()
    go.set()
    # Read each child's CPU time before joining it (a child with queued data waits).
    worker_cpu = sum(cpu.get() for _ in children)
    for child in children:
        child.join()
    elapsed = time.perf_counter() - started
    if any(child.exitcode for child in children):
        sys.exit("a benchmark process failed")

    units = GenerationUnit.objects.filter(run=run)
    by_status = dict(units.values_list("status").annotate(n=Count("id")))
    calls = LlmCallRecord.objects.filter(unit__run=run).aggregate(
        records=Count("id"), http=Sum("attempt_count")
    )
    candidates = Candidate.objects.filter(run=run).count()
    ideal = args.concurrency / (args.latency_ms / 1000.0)
    achieved = calls["http"] / elapsed
    print(f"units by status: {by_status}; candidates: {candidates}")
    print(f"calls: {calls['records']} records, {calls['http']} HTTP requests in {elapsed:.1f} s")
    print(f"achieved {achieved:.1f} calls/s; ideal {ideal:.1f} calls/s (concurrency / latency)")
    ratio = achieved / ideal
    print(f"ratio achieved / ideal: {ratio:.2f} (bar {BAR}: {'met' if ratio >= BAR else 'MISSED'})")
    cpu_ms = 1000.0 * worker_cpu / max(calls["http"] or 0, 1)
    verdict = "met" if cpu_ms <= CPU_TARGET_MS else "MISSED"
    print(
        f"CPU per call: {cpu_ms:.1f} ms ({worker_cpu:.1f} s of worker CPU over "
        f"{calls['http']} calls; target {CPU_TARGET_MS:.0f} ms: {verdict})"
    )
    connection.close()


if __name__ == "__main__":
    main()
