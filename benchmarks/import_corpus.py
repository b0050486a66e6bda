"""How fast is the corpus import, measured against a plain PostgreSQL COPY?

Generates a full-scale synthetic corpus (11 characters x 1,000 memories, mean narrative
~3,300 characters, as in seed 000 App. B.8; deterministic, seeded) as one characters
JSON file, then, in rounds on a fresh database ``heartbench_bench``:

  1. import_files(characters file + the whole public release) into empty tables,
  2. the same import again (idempotent: compares, writes nothing),
  3. TRUNCATE the memory table and COPY the very same 11,000 memory rows into it with
     plain psycopg, no Django, rows prepared beforehand.

The figure is the ratio of (1) to (3): what validation, idempotence checks and the rest
of the release cost on top of the bare write of the memories.

    DJANGO_SETTINGS_MODULE=heartbench_site.settings.test DATABASE_URL=postgres://... \
        .venv/bin/python benchmarks/import_corpus.py [--rounds 3]
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RELEASE_FILES = (
    "scenarios.json",
    "ground_truth.json",
    "mcq.json",
    "activated_memories_step1.json",
    "activated_memories_step2.json",
)
BENCH_DB = "heartbench_bench"
CORPUS_TABLES = (
    "adjudication_mcqoption",
    "adjudication_mcqitem",
    "adjudication_referenceresponse",
    "annotation_activationset",
    "annotation_memory",
    "annotation_profileversion",
    "annotation_scenario",
    "annotation_character",
)


def bench_database_url() -> tuple[str, str]:
    """(the server's URL as given, the same server with the benchmark's own database)."""
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at a PostgreSQL server (see scripts/services.sh)")
    parts = urlsplit(given)
    return given, urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate_database(server_url: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")


def drop_database(server_url: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()

    server_url, bench_url = bench_database_url()
    recreate_database(server_url)
    os.environ["DATABASE_URL"] = bench_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.test")
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    import psycopg
    from django.core.management import call_command
    from django.db import connection

    from annotation.corpus_import.importing import import_files
    from core.release import find_release_dir

    release_dir = find_release_dir()
    from annotation.corpus.models import Memory
    from annotation.corpus_import.synthetic import synthetic_characters

    call_command("migrate", verbosity=0)

    gen_seconds, characters = timed(synthetic_characters)
    characters_json = json.dumps({"characters": characters}, ensure_ascii=False).encode()
    release = [(name, (release_dir / name).read_bytes()) for name in RELEASE_FILES]
    memories = [m for c in characters for m in c["episodic_memory_set"]]
    mean_chars = statistics.fmean(len(m["content_full"]) for m in memories)
    release_mb = sum(len(data) for _, data in release) / 1e6
    print(
        f"corpus: {len(characters)} characters x {len(memories) // len(characters):,} memories "
        f"= {len(memories):,} memories, mean content_full {mean_chars:,.1f} characters; "
        f"characters file {len(characters_json) / 1e6:.1f} MB (generated in {gen_seconds:.1f} s); "
        f"release {len(release)} files {release_mb:.1f} MB"
    )

    def truncate(*tables: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")

    # The COPY baseline writes exactly the columns the importer writes for a memory.
    columns = [
        "memory_id",
        "anonymized_id",
        "character_id",
        "sequence",
        "timeline",
        "event_age",
        "life_stage",
        "context",
        "content_summary",
        "content_full",
        "triggers",
        "psych_conclusion",
        "behavior_policy",
        "emotion_primary",
        "emotion_secondary",
        "emotion_intensity",
        "relevance_tags",
        "is_demo_standin",
        "source",
        "created_at",
    ]

    def copy_rows():
        rows = []
        for row in Memory.objects.order_by("pk").values_list(*columns):
            values = dict(zip(columns, row, strict=True))
            values["triggers"] = json.dumps(values["triggers"], ensure_ascii=False)
            values["relevance_tags"] = json.dumps(values["relevance_tags"], ensure_ascii=False)
            rows.append([values[c] for c in columns])
        return rows

    def plain_copy(rows) -> None:
        with psycopg.connect(bench_url) as conn:
            with conn.cursor() as cursor:
                with cursor.copy(f"COPY annotation_memory ({', '.join(columns)}) FROM STDIN") as cp:
                    for row in rows:
                        cp.write_row(row)
            conn.commit()

    results = []
    header = ("round", "import chars", "import all", "re-import", "plain COPY")
    print("\n" + "  ".join(h.rjust(12) for h in header))
    for n in range(1, args.rounds + 1):
        truncate(*CORPUS_TABLES)
        chars_only, _ = timed(lambda: import_files([("characters.json", characters_json)]))
        truncate(*CORPUS_TABLES)
        full, summary = timed(
            lambda: import_files([("characters.json", characters_json), *release])
        )
        assert summary.counts["memories"]["created"] == len(memories)
        again, summary = timed(
            lambda: import_files([("characters.json", characters_json), *release])
        )
        assert not summary.changed
        rows = copy_rows()
        connection.close()  # the plain COPY runs on its own connection
        truncate("annotation_memory")
        copy_seconds, _ = timed(lambda rows=rows: plain_copy(rows))
        assert Memory.objects.count() == len(memories)
        results.append((chars_only, full, again, copy_seconds))
        cells = [f"{n}", *(f"{t:.2f} s" for t in (chars_only, full, again, copy_seconds))]
        print("  ".join(c.rjust(12) for c in cells))

    chars_only, full, again, copy_seconds = (min(r[i] for r in results) for i in range(4))
    print(f"\nbest of {args.rounds}:")
    print(f"  import_files, characters file + whole release : {full:6.2f} s")
    print(f"  import_files, characters file only            : {chars_only:6.2f} s")
    print(f"  re-import of both (nothing changes)           : {again:6.2f} s")
    print(f"  plain psycopg COPY of the same memory rows    : {copy_seconds:6.2f} s")
    print(f"ratio import (characters + release) / plain COPY: {full / copy_seconds:.2f}")
    print(f"ratio import (characters only) / plain COPY:      {chars_only / copy_seconds:.2f}")

    connection.close()
    if not args.keep_database:
        drop_database(server_url)


if __name__ == "__main__":
    main()
