"""Annotators and participants at once against gunicorn + PostgreSQL: is anything lost?

``--users`` simulated people (default 50) each log in through the real login form and,
for ``--seconds`` (default 120), work through their queue the way a person does: open
the page, type (autosaved drafts), submit, revise, now and then resubmit the same
content (a double click, a retry), with a pause between actions set by ``--pace``:
``person`` (the default) as fast as a person can work, ``stress`` with next to no pause,
to hunt lost writes under contention and find the machine's throughput. Every request
goes over HTTP to a gunicorn server this script starts on a fresh database
``heartbench_load`` of the PostgreSQL server in DATABASE_URL (a throwaway one from
``scripts/services.sh``). It prints the CPU seconds gunicorn and the clients spent.

Each client keeps a ledger of what the server acknowledged. Afterwards the script reads
the database and checks it holds exactly that: every acknowledged submission stored
once, in order, none extra, none lost; every acknowledged draft as last typed. It
prints throughput and p50/p95/p99 latency per endpoint, and exits 1 on any mismatch.

    scripts/services.sh start .build/load > .build/load.env && eval "$(grep export .build/load.env)"
    DJANGO_SETTINGS_MODULE=heartbench_site.settings.test .venv/bin/python benchmarks/load.py \\
        [--seconds 120] [--users 50] [--pace person|stress] [--gunicorn-workers 3] \\
        [--gunicorn-threads 8]

A workflow is a class with ``seed()`` (runs once, in-process, before the server starts),
``act(person, rng)`` (one step of one person) and ``verify()`` (compares ledger and
database, returns a list of problems); add one to ``WORKFLOWS`` to load a new endpoint
(``ComparisonWorkflow`` for annotators, ``BaselineWorkflow`` for participants; the
``--users`` are split evenly between the workflows).
"""

import argparse
import os
import random
import re
import resource
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
LOAD_DB = "heartbench_load"
PASSWORD = "load-test-pass-7431"


def load_database_url() -> tuple[str, str]:
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must point at a PostgreSQL server (see scripts/services.sh)")
    return given, urlunsplit(urlsplit(given)._replace(path=f"/{LOAD_DB}"))


def recreate_database(server_url: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {LOAD_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {LOAD_DB}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- What the clients measure and remember ------------------------------------------------


@dataclass
class Stats:
    latencies: dict = field(default_factory=lambda: defaultdict(list))
    errors: dict = field(default_factory=lambda: defaultdict(int))
    retries: dict = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def retried(self, endpoint: str) -> None:
        with self.lock:
            self.retries[endpoint] += 1

    def record(self, endpoint: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds)
            if not ok:
                self.errors[endpoint] += 1


@dataclass
class Person:
    username: str
    client: object  # httpx.Client
    stats: Stats
    state: dict = field(default_factory=dict)

    def request(self, endpoint: str, method: str, url: str, *, ok=(200, 302), **kwargs):
        import httpx

        started = time.perf_counter()
        try:
            response = self.client.request(method, url, **kwargs)
        except httpx.TransportError:
            # A kept-alive connection the server closed as we reused it. Send it again,
            # as a browser does: every write here is idempotent, so a request the
            # server did process is acknowledged, not applied twice (which is checked).
            self.stats.retried(endpoint)
            response = self.client.request(method, url, **kwargs)
        self.stats.record(endpoint, time.perf_counter() - started, response.status_code in ok)
        return response

    def post(self, endpoint: str, url: str, data: dict, *, headers=None):
        headers = {"X-CSRFToken": self.client.cookies.get("csrftoken"), **(headers or {})}
        return self.request(endpoint, "POST", url, data=data, headers=headers)


def log_in(person: Person) -> None:
    page = person.client.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    response = person.post(
        "POST /accounts/login/",
        "/accounts/login/",
        {"username": person.username, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    if response.status_code != 302:
        raise SystemExit(f"{person.username} could not log in ({response.status_code})")


# --- Workflows ------------------------------------------------------------------------------


class ComparisonWorkflow:
    """Blinded three-candidate comparison (/compare/<assignment>/): drafts, submits,
    revisions and repeated submits, three annotators per pair, until pairs are routed."""

    name = "comparison"
    role = "primary_annotator"
    pairs_per_person = 12

    def __init__(self):
        # ledger[assignment public id] = what the server acknowledged, in order
        self.submitted = defaultdict(list)  # accepted contents (deduplicated by the server)
        self.refused = defaultdict(int)  # refusals after routing
        self.last_draft = {}  # the last acknowledged draft after the last submit

    def seed(self, usernames: list[str]) -> None:
        from django.contrib.auth import get_user_model

        from annotation.comparison import services as comparison_services
        from core.roles import Role
        from tests.comparison.helpers import make_pair
        from tests.factories import ScenarioFactory

        User = get_user_model()
        admin = User.objects.get(username="load-admin")
        # Scenario ids of their own, clear of the ones other workflows' fixtures create.
        pairs = [
            make_pair(
                key=f"CHAR_{n + 10:02d}",
                scenario=ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{1000 + n}"),
            )
            for n in range(len(usernames) * self.pairs_per_person // 3)
        ]
        annotators = [u for u in User.objects.filter(username__in=usernames)]
        assert all(u.groups.filter(name=Role.PRIMARY_ANNOTATOR.value).exists() for u in annotators)
        comparison_services.comparison_assign(
            user=admin, pair_ids=[p.pk for p in pairs], annotator_ids=[u.pk for u in annotators]
        )

    def start(self, person: Person) -> None:
        from annotation.comparison.models import PairAssignment

        person.state["assignments"] = [
            str(a)
            for a in PairAssignment.objects.filter(annotator__username=person.username)
            .order_by("pk")
            .values_list("public_id", flat=True)
        ]
        person.state["serial"] = 0

    def content(self, person: Person, rng: random.Random) -> dict:
        person.state["serial"] += 1
        partial = rng.random() < 0.3
        return {
            "suitability": "suitable",
            "suitability_reason": "",
            "selected_letter": rng.choice("ABC"),
            "rating": "partial" if partial else "as_is",
            "selection_rationale": f"{person.username} rationale #{person.state['serial']}",
            "revision_guidance": "Replace the second sentence." if partial else "",
        }

    def act(self, person: Person, rng: random.Random) -> None:
        assignment = rng.choice(person.state["assignments"])
        page = f"/compare/{assignment}/"
        roll = rng.random()
        if roll < 0.2:
            person.request("GET /compare/<assignment>/", "GET", page)
        elif roll < 0.3:
            person.request("GET /compare/", "GET", "/compare/")
        elif roll < 0.85:
            draft = self.content(person, rng)
            draft = {
                k: v for k, v in draft.items() if k in ("selected_letter", "selection_rationale")
            }
            response = person.post(
                "POST /compare/<assignment>/draft/",
                f"/compare/{assignment}/draft/",
                draft,
                headers={"HX-Request": "true"},
            )
            if "Draft saved." in response.text:
                self.last_draft[assignment] = draft
        else:
            content = self.content(person, rng)
            # Now and then the same content goes twice (a double click, a retry).
            times = 2 if rng.random() < 0.2 else 1
            for _ in range(times):
                response = person.post("POST /compare/<assignment>/", page, content)
                if response.status_code == 302:
                    if not self.submitted[assignment] or self.submitted[assignment][-1] != content:
                        self.submitted[assignment].append(content)
                    self.last_draft.pop(assignment, None)
                elif "can no longer change" in response.text:
                    self.refused[assignment] += 1
                else:
                    raise AssertionError(f"unexpected answer to a submit: {response.status_code}")

    def verify(self) -> list[str]:
        from annotation.comparison.models import (
            ComparisonDraft,
            ComparisonJudgment,
            ComparisonJudgmentVersion,
            PairAssignment,
        )

        problems = []
        assignments = {str(a.public_id): a for a in PairAssignment.objects.all()}
        judgments = {
            str(j.assignment.public_id): j
            for j in ComparisonJudgment.objects.select_related("assignment")
        }
        drafts = {
            str(d.assignment.public_id): d.data
            for d in ComparisonDraft.objects.select_related("assignment")
        }
        versions = defaultdict(list)
        for v in ComparisonJudgmentVersion.objects.select_related("judgment__assignment").order_by(
            "number"
        ):
            versions[str(v.judgment.assignment.public_id)].append(v.selection_rationale)
        for public_id in assignments:
            expected = [c["selection_rationale"] for c in self.submitted.get(public_id, [])]
            stored = versions.get(public_id, [])
            if stored != expected:
                problems.append(f"{public_id}: versions {stored} != acknowledged {expected}")
            judgment = judgments.get(public_id)
            if expected and (judgment is None or judgment.version != len(expected)):
                problems.append(f"{public_id}: judgment version differs from {len(expected)}")
            if expected and judgment and judgment.selection_rationale != expected[-1]:
                problems.append(f"{public_id}: current judgment is not the last acknowledged")
            if not expected and judgment is not None:
                problems.append(f"{public_id}: a judgment nobody had acknowledged")
            want = self.last_draft.get(public_id)
            if want is not None and drafts.get(public_id) != want:
                problems.append(f"{public_id}: draft {drafts.get(public_id)} != {want}")
        return problems

    def summary(self) -> str:
        return (
            f"{sum(len(v) for v in self.submitted.values())} acknowledged distinct "
            f"submissions/revisions on {len(self.submitted)} assignments, "
            f"{sum(self.refused.values())} refused after routing, "
            f"{len(self.last_draft)} drafts pending"
        )


class BaselineWorkflow:
    """The human baseline (/baseline/s/<study>/items/<position>/): participants answer and
    revise items in their own order, by htmx saves and by plain form posts with "next",
    until the time is up. Each participant has their own responses, so the check is
    per participant: the stored answer history equals the acknowledged one."""

    name = "baseline"
    role = "baseline_participant"
    items = 20

    def __init__(self):
        # ledger[(username, position)] = acknowledged choices, consecutive duplicates merged
        self.answered = defaultdict(list)
        self.study_id = None

    def seed(self, usernames: list[str]) -> None:
        from django.contrib.auth import get_user_model

        from humanbaseline import services
        from tests.humanbaseline.conftest import make_study

        study, _, _ = make_study(n_items=self.items, n_practice=1)
        self.study_id = study.pk
        for user in get_user_model().objects.filter(username__in=usernames):
            p = services.participant_enrol(study=study, user=user, via="admin")
            p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
            p = services.briefing_complete(participation=p)
            services.practice_answer(participation=p, position=1, choice="A")
            services.baseline_session_start(participation=p)

    def start(self, person: Person) -> None:
        person.state["url"] = f"/baseline/s/{self.study_id}/items/"

    def act(self, person: Person, rng: random.Random) -> None:
        position = rng.randint(1, self.items)
        page = f"{person.state['url']}{position}/"
        roll = rng.random()
        if roll < 0.25:
            person.request("GET /baseline/s/<study>/items/<n>/", "GET", page)
            return
        choice = rng.choice("ABCD")
        # seconds=0: a save re-sent after a dropped connection must stay idempotent.
        if roll < 0.8:
            response = person.post(
                "POST /baseline/…/items/<n>/ (htmx save)",
                page,
                {"choice": choice, "seconds": "0"},
                headers={"HX-Request": "true"},
            )
            ok = f"Saved {choice} at" in response.text
        else:
            response = person.post(
                "POST /baseline/…/items/<n>/ (next)", page, {"choice": choice, "go": "next"}
            )
            ok = response.status_code == 302
        if not ok:
            raise AssertionError(f"unexpected answer to a save: {response.status_code}")
        ledger = self.answered[(person.username, position)]
        if not ledger or ledger[-1] != choice:
            ledger.append(choice)

    def verify(self) -> list[str]:
        from humanbaseline.models import AnswerEvent, ItemResponse

        problems = []
        events = defaultdict(list)
        for event in AnswerEvent.objects.select_related("response__participation__user").order_by(
            "pk"
        ):
            r = event.response
            events[(r.participation.user.username, r.position)].append(event.choice)
        responses = {
            (r.participation.user.username, r.position): r
            for r in ItemResponse.objects.select_related("participation__user").filter(
                participation__study_id=self.study_id
            )
        }
        for key, response in responses.items():
            expected = self.answered.get(key, [])
            if events.get(key, []) != expected:
                problems.append(
                    f"{key}: answer history {events.get(key)} != acknowledged {expected}"
                )
            if (response.choice or None) != (expected[-1] if expected else None):
                problems.append(f"{key}: stored {response.choice!r}, acknowledged {expected[-1:]}")
            if response.revisions != max(len(expected) - 1, 0):
                problems.append(
                    f"{key}: {response.revisions} revisions, expected {len(expected) - 1}"
                )
        return problems

    def summary(self) -> str:
        saves = sum(len(v) for v in self.answered.values())
        return (
            f"{saves} acknowledged distinct answers/revisions on {len(self.answered)} "
            f"participant x item responses"
        )


WORKFLOWS = {w.name: w for w in (ComparisonWorkflow, BaselineWorkflow)}


# --- Running ---------------------------------------------------------------------------------


def seed(workflows, users: int) -> dict[str, list[str]]:
    from django.contrib.auth.models import Group

    from core.roles import Role
    from tests.factories import UserFactory

    for role in Role:
        Group.objects.get_or_create(name=role.value)
    admin = UserFactory(username="load-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True)
    admin.set_password(PASSWORD)
    admin.save()
    people = {}
    for workflow in workflows:
        names = [f"load-{workflow.name}-{i:02d}" for i in range(users // len(workflows))]
        for name in names:
            user = UserFactory(username=name, roles=[Role(workflow.role)])
            user.set_password(PASSWORD)
            user.save()
        workflow.seed(names)
        people[workflow.name] = names
    return people


def start_gunicorn(env: dict, port: int, workers: int, threads: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "heartbench_site.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--keep-alive",
            "30",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    import httpx

    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("gunicorn did not answer /healthz")


# The pause between one person's actions, in seconds (uniform between the two). A person
# cannot work faster than "person": the comparison form autosaves 1.2 s after the last
# keystroke, and a participant reads an item before choosing (a real session is slower
# still: tens of seconds an item, minutes a pair). "stress" sends the next request at
# once, so 50 clients keep every worker busy: it finds lost or doubled writes under
# contention, and measures the machine's throughput, not what a person waits.
PACES = {"person": (1.2, 3.0), "stress": (0.0, 0.2)}


def cpu_seconds(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def percentile(values, q):
    import numpy as np

    return float(np.percentile(np.asarray(values), q)) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--workflows", default=",".join(WORKFLOWS))
    parser.add_argument("--gunicorn-workers", type=int, default=3)
    parser.add_argument("--gunicorn-threads", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20261012)
    parser.add_argument(
        "--pace",
        choices=sorted(PACES),
        default="person",
        help="the pause between one person's actions: 'person' (the default) as fast as a "
        "person can work, 'stress' the old hammering for loss checks under contention",
    )
    args = parser.parse_args()

    server_url, db_url = load_database_url()
    recreate_database(server_url)
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DJANGO_SETTINGS_MODULE": os.environ.get(
            "DJANGO_SETTINGS_MODULE", "heartbench_site.settings.test"
        ),
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "DEBUG": "false",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import logging

    import httpx

    logging.getLogger("httpx").setLevel(logging.WARNING)

    workflows = [WORKFLOWS[name]() for name in args.workflows.split(",")]
    people = seed(workflows, args.users)

    port = free_port()
    children_before = cpu_seconds(resource.RUSAGE_CHILDREN)
    server = start_gunicorn(env, port, args.gunicorn_workers, args.gunicorn_threads)
    pause = PACES[args.pace]
    stats = Stats()
    failures = []
    try:
        persons = []
        for workflow in workflows:
            for i, name in enumerate(people[workflow.name]):
                client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
                person = Person(name, client, stats)
                workflow.start(person)
                persons.append((workflow, person, random.Random(args.seed + i)))
        for _, person, _ in persons:
            log_in(person)

        deadline = time.monotonic() + args.seconds
        started = time.monotonic()
        clients_before = cpu_seconds(resource.RUSAGE_SELF)

        def work(workflow, person, rng):
            try:
                # People do not all click at the same moment: each begins within one pause.
                time.sleep(rng.uniform(0, pause[1]))
                while time.monotonic() < deadline:
                    workflow.act(person, rng)
                    time.sleep(rng.uniform(*pause))  # a person's pause between actions
            except Exception as error:  # noqa: BLE001 - reported and fails the run
                failures.append(f"{person.username}: {error!r}")

        threads = [threading.Thread(target=work, args=p) for p in persons]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
        clients_cpu = cpu_seconds(resource.RUSAGE_SELF) - clients_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    # gunicorn's workers are counted once the server has exited (its login and the
    # seeding above are in the clients' and this process's share, not the server's).
    server_cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - children_before

    from django.db import connection

    connection.close()
    problems = list(failures)
    for workflow in workflows:
        problems += workflow.verify()

    total = sum(len(v) for v in stats.latencies.values())
    print(
        f"{len(persons)} simulated people, {elapsed:.0f} s, gunicorn "
        f"{args.gunicorn_workers} workers x {args.gunicorn_threads} threads, PostgreSQL"
    )
    print(
        f"pace {args.pace!r}: {pause[0]:g}-{pause[1]:g} s between one person's actions; "
        f"{total} requests, {total / elapsed:.1f} requests/s overall"
    )
    print(
        f"CPU over the run: gunicorn {server_cpu:.0f} s, the simulated people's clients "
        f"{clients_cpu:.0f} s, of {os.cpu_count() * elapsed:.0f} s on {os.cpu_count()} cores "
        f"(PostgreSQL not counted)"
    )
    header = ("n", "req/s", "p50 ms", "p95 ms", "p99 ms", "err", "retried")
    print(f"{'endpoint':40} " + " ".join(f"{h:>8}" for h in header))
    for endpoint, values in sorted(stats.latencies.items()):
        print(
            f"{endpoint:40} {len(values):8d} {len(values) / elapsed:8.1f} "
            f"{percentile(values, 50):8.1f} {percentile(values, 95):8.1f} "
            f"{percentile(values, 99):8.1f} {stats.errors[endpoint]:8d} "
            f"{stats.retries[endpoint]:8d}"
        )
    for workflow in workflows:
        print(f"{workflow.name}: {workflow.summary()}")
    if problems:
        print(f"DATABASE DIFFERS FROM WHAT THE CLIENTS WERE TOLD ({len(problems)}):")
        for p in problems[:50]:
            print("  " + p)
        return 1
    print("database check: every acknowledged submission stored exactly once; nothing lost")
    return 0


if __name__ == "__main__":
    sys.exit(main())
