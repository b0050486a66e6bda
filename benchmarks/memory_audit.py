"""How fast is the automated memory audit, measured against bare TF-IDF + cosine?

Generates a full-scale synthetic corpus (11 characters x 1,000 memories, deterministic)
with the realistic generator the demo's stand-ins use (``heartbench_site.synthetic_corpus``:
one scene per memory with its own age, intensity tier, domain and sentences, ~2,400
characters) and, in rounds, times:

  1. the audit's pure core, ``audit.memory_quality.criteria.audit_memories``: criteria 1-6 without
     the LLM classifier (pattern checks on every field, word counts, lengths, and TF-IDF +
     cosine per character and age window), findings built;
  2. the floor: scikit-learn ``TfidfVectorizer().fit_transform`` and the sparse
     ``triu(X @ X.T) > 0.85`` over exactly the same windows, nothing else.

The figure is the ratio (1) / (2); the target is at most 2x. It prints the share of
memories the near-duplicate criterion (4) flags: a realistic corpus passes a default
audit with few findings (the paper's corpus: 2,009 of 11,000 memories flagged over all
criteria). With ``--db`` it also loads the corpus into a fresh database
``heartbench_audit_bench`` on the server of DATABASE_URL and times the end-to-end run the
Celery task does (``audit.memory_quality.services.runs.audit_run_execute``: read rows,
audit, write cases, flags and versions, progress), reported separately.

    .venv/bin/python benchmarks/memory_audit.py [--rounds 3] [--db]
"""

import argparse
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "heartbench_audit_bench"
LABEL = "[Synthetic benchmark memory]"
_AGE = re.compile(r"\((\d+) years old\)")


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def memory_texts(characters):
    from audit.memory_quality.criteria import MemoryText

    return [
        MemoryText(
            m["id"],
            c["id"],
            int(_AGE.search(m["timeline"]).group(1)),
            m["context"],
            m["content_summary"],
            m["content_full"],
            float(m["emotion_signature"]["intensity"]),
        )
        for c in characters
        for m in c["episodic_memory_set"]
    ]


def floor(texts, config) -> int:
    """Bare TF-IDF + cosine over the audit's windows: the part no audit can skip."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer

    from audit.memory_quality.criteria import window_groups

    pairs = 0
    for indices in window_groups(texts, config).values():
        if len(indices) < 2:
            continue
        matrix = TfidfVectorizer().fit_transform([texts[i].content_full for i in indices])
        cosine = sparse.triu(matrix @ matrix.T, k=1).tocoo()
        pairs += int((cosine.data > config.duplicate_threshold).sum())
    return pairs


def db_run(characters, rounds: int) -> None:
    import psycopg

    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("--db needs DATABASE_URL pointing at a PostgreSQL server (scripts/services.sh)")
    bench_url = urlunsplit(urlsplit(given)._replace(path=f"/{BENCH_DB}"))
    with psycopg.connect(given, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
    try:
        from django.conf import settings
        from django.db import connections

        connections["default"].close()
        settings.DATABASES["default"]["NAME"] = BENCH_DB
        os.environ["DATABASE_URL"] = bench_url
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from annotation.corpus.models import Character, Memory
        from audit.memory_quality.models import AuditRun
        from audit.memory_quality.services import runs
        from heartbench_site import synthetic_corpus

        rows = []
        for c in characters:
            character = Character.objects.create(key=c["id"])
            for seq, m in enumerate(c["episodic_memory_set"], start=1):
                age = int(_AGE.search(m["timeline"]).group(1))
                rows.append(
                    synthetic_corpus.standin_row(
                        character,
                        m,
                        anonymized_id=f"MEM_{c['id']}_{seq:04d}",
                        sequence=seq,
                        age=age,
                    )
                )
        Memory.objects.bulk_create(rows, batch_size=1000)
        times = []
        for _ in range(rounds):
            run = runs.audit_run_start(created_by=None, note="benchmark")
            seconds, run = timed(
                lambda run=run: runs.audit_run_execute(run_id=run.pk, dispatch_repairs=False)
            )
            times.append(seconds)
            cases = run.cases.count()
            AuditRun.objects.filter(pk=run.pk).delete()
        print(
            f"end-to-end DB-backed run (audit_run_execute, PostgreSQL): "
            f"median {statistics.median(times):.2f} s over "
            f"{rounds} round{'s' if rounds != 1 else ''} "
            f"(min {min(times):.2f} s); {cases:,} cases written"
        )
    finally:
        connections["default"].close()
        with psycopg.connect(given, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--characters", type=int, default=11)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--db", action="store_true", help="also time the DB-backed run")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heartbench_site.settings.test")
    os.environ.setdefault("SECRET_KEY", "benchmark-only")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from audit.memory_quality.criteria import (
        SEMANTIC_DUPLICATION,
        AuditConfig,
        CompiledConfig,
        audit_memories,
    )
    from heartbench_site import synthetic_corpus

    gen_seconds, characters = timed(
        lambda: [
            {
                "id": f"CHAR_{n:02d}",
                "episodic_memory_set": synthetic_corpus.memories(
                    f"CHAR_{n:02d}", args.memories, label=LABEL
                ),
            }
            for n in range(1, args.characters + 1)
        ]
    )
    texts = memory_texts(characters)
    mean_chars = statistics.fmean(len(t.content_full) for t in texts)
    print(
        f"corpus: {len(characters)} characters x {args.memories:,} memories = {len(texts):,} "
        f"memories, mean content_full {mean_chars:,.1f} characters "
        f"(generated in {gen_seconds:.1f} s)"
    )
    config = AuditConfig()
    audit_times, floor_times = [], []
    for _ in range(args.rounds):
        seconds, result = timed(
            lambda: audit_memories(texts, config, compiled=CompiledConfig.of(config))
        )
        audit_times.append(seconds)
        seconds, pairs = timed(lambda: floor(texts, config))
        floor_times.append(seconds)
    audit_s, floor_s = statistics.median(audit_times), statistics.median(floor_times)
    per_criterion = Counter(f.criterion for found in result.findings.values() for f in found)
    print(
        f"audit, criteria 1-6 (pure core):  median {audit_s:.2f} s "
        f"(min {min(audit_times):.2f} s); {len(result.flagged()):,} memories flagged, "
        f"flags per criterion {dict(sorted(per_criterion.items()))}"
    )
    print(
        f"floor, bare TF-IDF + cosine:      median {floor_s:.2f} s "
        f"(min {min(floor_times):.2f} s); {pairs:,} pairs above "
        f"{config.duplicate_threshold}"
    )
    ratio = audit_s / floor_s
    print(f"ratio audit / floor: {ratio:.2f}x (target <= 2x) {'OK' if ratio <= 2 else 'OVER'}")
    duplicates = sum(
        any(f.criterion == SEMANTIC_DUPLICATION for f in found)
        for found in result.findings.values()
    )
    print(
        f"near-duplicates (criterion 4): {duplicates:,} of {len(texts):,} memories "
        f"({duplicates / len(texts):.1%})"
    )
    print(f"length report: {result.length_report}")
    if args.db:
        db_run(characters, rounds=max(1, min(args.rounds, 2)))


if __name__ == "__main__":
    main()
