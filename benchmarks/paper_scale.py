"""Every role's main pages at demo size and at the paper's scale: p50/p95 and queries.

Builds two throwaway databases on the PostgreSQL server of DATABASE_URL (a throwaway one
from ``scripts/services.sh``, as ``make bench`` starts):

- ``heartbench_bench_demo``: ``demo_setup`` (the release, the stand-in characters, every
  workflow at its demo stage; offline demo providers, Celery eager);
- ``heartbench_bench_paper``: a copy of it grown to the paper's scale through the
  platform's services (``benchmarks/paper_build.py``: 11 × 1,000 memories, 704 pairs × 3
  candidates, 2,112 judgments, 279 escalations, the 176-item label audit answered, 65
  evaluation runs, over the release's 673 final items); ``--scale 10`` copies the pairs
  tenfold (7,040 pairs, 21,120 judgments).

Then, before timing, every stored report the pages read (``core.reports``) is computed
in-process on both databases, so the figures measure the page, not the statistics. The
pages of ``PAGES`` are requested with Django's test Client in this process, interleaved
(each round: page 1 demo, page 1 paper, page 2 demo, …), after one warm-up request each;
the script prints each page's p50 and p95, its query count at both sizes and the ratio
paper / demo of the medians.

    .venv/bin/python benchmarks/paper_scale.py [--scale 1] [--rounds 15] [--keep]

``--keep`` leaves both databases for a look afterwards; ``--reuse`` times them again
without building.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEMO_DB = "heartbench_bench_demo"
PAPER_DB = "heartbench_bench_paper"
SLOW_MS = 300

# (role user, page, URL; {placeholders} are filled from the demo's rows, which the
# paper-scale copy keeps under the same ids).
PAGES = (
    ("annotator", "annotator comparison queue", "/compare/"),
    ("annotator", "comparison page", "/compare/{assignment}/"),
    ("arbitrator", "arbitration queue", "/arbitration/"),
    ("arbitrator", "arbitration case", "/arbitration/pairs/{escalated_pair}/"),
    ("arbitrator", "arbitration decided list", "/arbitration/decided/"),
    ("admin", "pipeline", "/pipeline/"),
    ("admin", "pair assignment page", "/compare/assign/"),
    ("admin", "judge run page", "/judging/runs/{judge_run}/"),
    ("admin", "judge calibration report", "/judging/runs/{judge_run}/report/"),
    ("admin", "evaluation run list", "/evaluation/"),
    ("admin", "evaluation analysis", "/evaluation/analysis/"),
    ("admin", "arbitration analytics", "/arbitration/analytics/"),
    ("admin", "comparison outcomes", "/arbitration/outcomes/"),
    ("admin", "label-audit outcomes", "/audit/labels/{label_audit}/outcomes/"),
    ("admin", "baseline report", "/baseline/admin/studies/{study}/report/"),
    ("admin", "export page", "/export/"),
    ("memory", "memory audit queue", "/audit/"),
    ("memory", "memory audit cases API", "/api/audit/cases/"),
    ("auditor", "label audit expert queue", "/audit/labels/{label_audit}/mine/"),
)


def server_url() -> str:
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at a PostgreSQL server (see scripts/services.sh)")
    return given


def db_url(server: str, name: str) -> str:
    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


def admin_sql(server: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        for sql in statements:
            conn.execute(sql)


def use(name: str) -> None:
    """Point Django's default connection at database ``name``."""
    from django.conf import settings
    from django.db import connections

    connection = connections["default"]
    connection.close()
    settings.DATABASES["default"]["NAME"] = name
    connection.settings_dict["NAME"] = name
    connection.ensure_connection()


def build(server: str, scale: float, *, keep_demo: bool = False) -> dict:
    from django.core.management import call_command
    from django.db import connections

    from benchmarks import paper_build

    started = time.perf_counter()
    connections["default"].close()
    admin_sql(server, f"DROP DATABASE IF EXISTS {PAPER_DB} WITH (FORCE)")
    if not keep_demo:
        print(f"building {DEMO_DB} (migrate + demo_setup) …", flush=True)
        admin_sql(server, f"DROP DATABASE IF EXISTS {DEMO_DB} WITH (FORCE)")
        admin_sql(server, f"CREATE DATABASE {DEMO_DB}")
        use(DEMO_DB)
        call_command("migrate", verbosity=0)
        with open(os.devnull, "w") as devnull:
            call_command("demo_setup", stdout=devnull)
        print(f"  demo built in {time.perf_counter() - started:.0f} s", flush=True)
    use(DEMO_DB)
    demo_counts = paper_build.counts()
    connections["default"].close()
    admin_sql(server, f"CREATE DATABASE {PAPER_DB} TEMPLATE {DEMO_DB}")
    use(PAPER_DB)
    print(f"growing {PAPER_DB} to {scale:g} × the paper …", flush=True)
    grown = time.perf_counter()
    paper_counts = paper_build.grow(scale)
    print(f"  grown in {time.perf_counter() - grown:.0f} s", flush=True)
    return {"demo": demo_counts, "paper": paper_counts}


def print_counts(counts: dict, scale: float) -> None:
    from benchmarks import paper_build

    want = paper_build.targets(scale)
    target = {
        "stand-in memories": 11 * want["memories_per_character"],
        "pairs": want["pairs"],
        "judgments": want["judgments"],
        "escalations": want["escalations"],
        "final items": paper_build.PAPER["final_items"],
        "label audit items": paper_build.PAPER["label_audit_items"],
        "label audit items answered": want["label_audit_items"],
        "evaluation runs": want["evaluation_runs"],
    }
    print(f"\n{'rows':<28}{'demo':>8}{'grown':>8}{'paper':>8}")
    for key, value in counts["paper"].items():
        print(f"{key:<28}{counts['demo'].get(key, 0):>8,}{value:>8,}{target.get(key, ''):>8}")
    print(
        "(paper: the count seed 000 reports, times the scale; the demo's pairs keep their "
        "stages, one waiting for the annotator, so a few judgments stay open)"
    )


def placeholders() -> dict[str, object]:
    from adjudication.judging.models import JudgeRun
    from annotation.comparison.models import ComparisonPair, PairAssignment
    from audit.reference_labels.models import LabelAudit
    from humanbaseline.models import BaselineStudy

    open_assignment = PairAssignment.objects.filter(
        annotator__username="annotator", judgment__isnull=True
    ).first()
    escalated = ComparisonPair.objects.filter(status=ComparisonPair.Status.ESCALATED).first()
    values = {
        "assignment": open_assignment.public_id if open_assignment else None,
        "escalated_pair": escalated.pk if escalated else None,
        # The latest: at paper size, the benchmark's run over every judged pair.
        "judge_run": getattr(JudgeRun.objects.order_by("pk").last(), "pk", None),
        "label_audit": getattr(LabelAudit.objects.order_by("pk").first(), "pk", None),
        "study": getattr(BaselineStudy.objects.order_by("pk").first(), "pk", None),
    }
    return values


def pages() -> list[tuple[str, str, str | None]]:
    """PAGES with the database in use's ids; None where it has nothing to show."""
    values = placeholders()
    out = []
    for user, name, url in PAGES:
        filled = url.format(**values)
        out.append((user, name, None if "None" in filled else filled))
    return out


def compute_stored_reports(urls) -> list[str]:
    """Open every page once with Celery eager (a page queues the reports it reads, which
    then compute in this process), then compute any report still not fresh."""
    from django.test import Client

    from core.reports import services
    from core.reports.models import ReportStatus, StoredReport
    from heartbench_site.celery import app

    app.conf.task_always_eager = True
    for user, _name, url in urls:
        client = Client()
        client.force_login(user_named(user))
        client.get(url)
    for row in StoredReport.objects.exclude(status=ReportStatus.DONE):
        services.compute_report(row.kind, row.key)
    # While timing, a page that found a stale report would queue it for a worker, not
    # compute it inside the request.
    app.conf.task_always_eager = False
    return [f"{r.kind}[{r.key}]" for r in StoredReport.objects.order_by("kind", "key")]


def user_named(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


def time_pages(by_db: dict, rounds: int) -> dict:
    """{(db, page): {"ms": [...], "queries": n, "status": code, "bytes": n}}; ``by_db``
    holds each database's [(user, page, url)], the same pages in the same order."""
    urls = by_db[DEMO_DB]
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    clients = {}
    for db in (DEMO_DB, PAPER_DB):
        use(db)
        for user in {u for u, _, _ in urls}:
            client = Client()
            client.force_login(user_named(user))
            clients[(db, user)] = client
    results = {}
    for db in (DEMO_DB, PAPER_DB):
        use(db)
        for user, name, url in by_db[db]:
            with CaptureQueriesContext(connection) as queries:
                response = clients[(db, user)].get(url)
            results[(db, name)] = {
                "ms": [],
                "queries": len(queries),
                "status": response.status_code,
                "bytes": len(response.content),
            }
    for n in range(rounds):
        for i, (user, name, _url) in enumerate(urls):
            for db in (DEMO_DB, PAPER_DB):
                use(db)
                url = by_db[db][i][2]
                start = time.perf_counter()
                clients[(db, user)].get(url)
                results[(db, name)]["ms"].append((time.perf_counter() - start) * 1000)
        print(f"  round {n + 1} of {rounds} done", flush=True)
    return results


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def print_table(urls, results) -> None:
    print(
        f"\n{'page':<30}{'demo p50':>9}{'p95':>7}{'q':>5}"
        f"{'paper p50':>11}{'p95':>7}{'q':>5}{'ratio':>7}{'KB':>7}  status"
    )
    slow = []
    for _user, name, _url in urls:
        demo, paper = results[(DEMO_DB, name)], results[(PAPER_DB, name)]
        d50, p50 = statistics.median(demo["ms"]), statistics.median(paper["ms"])
        status = f"{demo['status']}/{paper['status']}"
        print(
            f"{name:<30}{d50:>9.0f}{p95(demo['ms']):>7.0f}{demo['queries']:>5}"
            f"{p50:>11.0f}{p95(paper['ms']):>7.0f}{paper['queries']:>5}"
            f"{p50 / d50:>7.1f}{paper['bytes'] / 1024:>7.0f}  {status}"
        )
        if p50 > SLOW_MS:
            slow.append(name)
    print("(milliseconds; q: queries per request; KB: the paper-size response)")
    if slow:
        print(f"over {SLOW_MS} ms median at paper size: {', '.join(slow)}")


def profile_slow(by_db: dict, results: dict, top: int) -> None:
    """cProfile of one paper-size request of each page over SLOW_MS median: the
    project's functions with the most cumulative time."""
    import cProfile
    import pstats

    from django.test import Client

    use(PAPER_DB)
    for user, name, url in by_db[PAPER_DB]:
        if statistics.median(results[(PAPER_DB, name)]["ms"]) <= SLOW_MS:
            continue
        client = Client()
        client.force_login(user_named(user))
        profiler = cProfile.Profile()
        profiler.runcall(client.get, url)
        stats = pstats.Stats(profiler)
        rows = []
        for (filename, line, function), (_cc, _nc, _tt, cumulative, _) in stats.stats.items():
            if str(ROOT) in filename and ".venv" not in filename:
                where = f"{Path(filename).relative_to(ROOT)}:{line} {function}"
                rows.append((cumulative, where))
        total = max((c for c, _ in rows), default=0.0)
        print(f"\nprofile of {name} at paper size ({total * 1000:.0f} ms in project code):")
        for cumulative, where in sorted(rows, reverse=True)[:top]:
            print(f"  {cumulative * 1000:8.0f} ms  {where}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--keep", action="store_true", help="leave both databases")
    parser.add_argument("--reuse", action="store_true", help="time the databases kept")
    parser.add_argument(
        "--profile", type=int, default=12, help="profile rows per page over 300 ms (0: none)"
    )
    parser.add_argument(
        "--regrow", action="store_true", help="keep the demo database, grow a new copy"
    )
    args = parser.parse_args()

    server = server_url()
    os.environ["DJANGO_SETTINGS_MODULE"] = "heartbench_site.settings.local"
    os.environ["DATABASE_URL"] = db_url(server, DEMO_DB)
    os.environ["DEBUG"] = "false"
    os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    try:
        if not args.reuse:
            print_counts(build(server, args.scale, keep_demo=args.regrow), args.scale)
        print("\ncomputing the stored reports the pages read, on both databases …", flush=True)
        by_db = {}
        for db in (DEMO_DB, PAPER_DB):
            use(db)
            by_db[db] = pages()
        missing = {name for urls in by_db.values() for _, name, url in urls if url is None}
        for name in sorted(missing):
            print(f"  (skipped: {name}, nothing to show in one of the databases)")
        by_db = {db: [p for p in urls if p[1] not in missing] for db, urls in by_db.items()}
        for db in (DEMO_DB, PAPER_DB):
            use(db)
            urls = by_db[db]
            started = time.perf_counter()
            kinds = compute_stored_reports(urls)
            print(f"  {db}: {len(kinds)} stored reports fresh in ", end="")
            print(f"{time.perf_counter() - started:.0f} s: {', '.join(kinds) or 'none'}")
        print(f"\ntiming {len(urls)} pages, {args.rounds} rounds, demo and paper interleaved:")
        results = time_pages(by_db, args.rounds)
        print_table(urls, results)
        print("(stored reports computed before timing: the figures are the pages' own cost)")
        if args.profile:
            profile_slow(by_db, results, args.profile)
    finally:
        from django.db import connections

        connections["default"].close()
        if not args.keep:
            admin_sql(
                server,
                f"DROP DATABASE IF EXISTS {PAPER_DB} WITH (FORCE)",
                f"DROP DATABASE IF EXISTS {DEMO_DB} WITH (FORCE)",
            )


if __name__ == "__main__":
    main()
