"""The production rehearsal (issue #36): the site set up and run as a lab would run it
(docs/lab-admin/production.md), every part a real process on loopback.

One test, in the order a lab admin works: deployment checks, ``migrate``,
``collectstatic``, the first admin, gunicorn behind the (stand-in) TLS proxy, mail through
an SMTP server, an annotator invited by mail who sets a password and logs in, a generation
run whose units the workers of two hosts share, a run stopped at its budget and resumed,
then a backup restored into an empty database and compared with the original.
"""

import base64
import json
import re
import subprocess
import threading
import time
from contextlib import ExitStack
from decimal import Decimal

import pytest
import redis as redis_client
from aiosmtpd.controller import Controller

from llm.testing.fake_server import FakeProviderServer
from tests.generation.helpers import ScriptedProvider, worker_env
from tests.reliability.faults import Redis, free_port
from tests.reliability.test_backup_restore import table_contents

from .lab import (
    ADMIN_ENV,
    LAB_HOST,
    LAB_URL,
    SETTINGS,
    Host,
    Inbox,
    LabDatabase,
    LabSession,
    TlsProxy,
    new_secret_key,
    wait_until_ready,
)

pytestmark = [pytest.mark.worker]

ADMIN = {"username": "lab-admin", "email": "admin@lab.test", "password": "Lab-admin-pass-9431"}
ANNOTATOR = {"email": "annotator@lab.test", "username": "ann-lab", "password": "Ann-lab-pass-7264"}
API_KEY = "rehearsal-shared-key"
CHARACTERS = ("CHAR_01", "CHAR_02")
SCENARIOS = ("SCN_SCHOOL_AGE_1", "SCN_SCHOOL_AGE_2")
UNITS = len(CHARACTERS) * len(SCENARIOS) * 3  # three model families
WAIT_SECONDS = 180
UNIT_TASK = "annotation.execute_generation_unit"
# USD per million tokens, for every family. They are set on the web host (the estimate on
# the launch page) and on both worker hosts (the cost each call records, which the budget
# check reads): one unit then costs more than the budget below.
PRICES = {
    "PRICE_IN": "3000",
    "PRICE_OUT": "15000",
    "ACTIVATION_PRICE_IN": "1000",
    "ACTIVATION_PRICE_OUT": "5000",
}
BUDGET = Decimal("0.01")
WORKER_PROCESSES = 4  # two hosts, each worker with --concurrency 2
# The corpus a lab imports (here a small stand-in, made with the suite's factories).
SEED_CORPUS = f"""
from tests.generation.helpers import frozen_character, scenario
for key in {CHARACTERS!r}:
    frozen_character(key, ages=[6, 7, 8, 12])
for scenario_id in {SCENARIOS!r}:
    scenario(scenario_id, age=10)
"""


@pytest.fixture
def lab(tmp_path, worker_id):
    """The lab's services and hosts; every process stopped and the databases dropped at
    the end. The database and the broker belong to this test alone."""
    suffix = "" if worker_id == "master" else f"_{worker_id}"
    with ExitStack() as cleanup:
        database = LabDatabase(f"heartbench_production{suffix}").create()
        cleanup.callback(database.drop)
        restored = LabDatabase(f"heartbench_production_restored{suffix}")
        cleanup.callback(restored.drop)
        broker = Redis(tmp_path).start()
        cleanup.callback(broker.stop)
        inbox = Inbox()
        smtp = Controller(inbox, hostname="127.0.0.1", port=free_port())
        smtp.start()
        cleanup.callback(smtp.stop)
        # The provider answers nothing until both hosts' workers are up ("opened"), so the
        # host that starts first cannot take the whole run before the other is ready.
        opened = threading.Event()
        script = ScriptedProvider()

        def answer_once_open(request):
            assert opened.wait(timeout=WAIT_SECONDS), "the provider was never opened"
            return script(request)

        provider = FakeProviderServer(responder=answer_once_open, api_key=API_KEY, latency_s=0.3)
        provider.start()
        cleanup.callback(provider.stop)
        providers = worker_env(provider, timeout=float(WAIT_SECONDS))
        for family in ("CLAUDE", "GPT", "GEMINI"):
            providers[f"HEARTBENCH_{family}_API_KEY"] = API_KEY
            providers.update({f"HEARTBENCH_{family}_{k}": v for k, v in PRICES.items()})
        shared = {
            "DJANGO_SETTINGS_MODULE": SETTINGS,
            "DATABASE_URL": database.url,
            "CELERY_BROKER_URL": broker.url,
            "SECRET_KEY": new_secret_key(),
            **providers,
        }
        # Every host may send mail (docker-compose.yml gives web and worker the same).
        mail = {
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp.port),
            "DEFAULT_FROM_EMAIL": "heartbench@lab.test",
        }
        web = Host(
            "web-1",
            tmp_path / "web-1",
            shared,
            ALLOWED_HOSTS=LAB_HOST,
            CSRF_TRUSTED_ORIGINS=LAB_URL,
            STATIC_ROOT=str(tmp_path / "web-1" / "staticfiles"),
            **mail,
        )
        hosts = {name: Host(name, tmp_path / name, shared, **mail) for name in ("host-a", "host-b")}
        for host in (web, *hosts.values()):
            cleanup.callback(host.stop)
        yield {
            "database": database,
            "restored": restored,
            "broker": broker,
            "inbox": inbox,
            "provider": provider,
            "provider_opened": opened,
            "web": web,
            "hosts": hosts,
            "tmp": tmp_path,
        }


# --- the steps ---------------------------------------------------------------------------


def install(lab) -> None:
    """The deployment checks, the schema, the static files and the first admin, each with
    the command docs/lab-admin/production.md gives."""
    web = lab["web"]
    checked = web.manage("check", "--deploy", "--fail-level", "WARNING")
    assert "no issues" in checked.stdout, checked.stdout + checked.stderr
    web.manage("migrate", "--noinput")
    assert web.manage("migrate", "--check", check=False).returncode == 0
    web.manage("collectstatic", "--noinput")
    assert (web.dir / "staticfiles" / "staticfiles.json").is_file()
    first_admin = dict(zip(ADMIN_ENV, ADMIN.values(), strict=True))
    web.manage("createsuperuser", "--noinput", env=first_admin)


def serve(lab) -> TlsProxy:
    port = free_port()
    lab["web"].start_gunicorn(port)
    return TlsProxy(port)


def https_is_enforced(proxy: TlsProxy) -> None:
    """Plain HTTP is sent to HTTPS; over the proxy's HTTPS the answers carry HSTS and
    the cookies are secure, host-only and out of scripts' reach."""
    plain = LabSession(proxy, "visitor").http.get(
        f"http://127.0.0.1:{proxy.port}/accounts/login/",
        headers={"Host": LAB_HOST},
        allow_redirects=False,
        timeout=30,
    )
    assert plain.status_code == 301
    assert plain.headers["Location"] == f"{LAB_URL}/accounts/login/"

    page = LabSession(proxy, "visitor").get("/accounts/login/")
    assert page.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith("__Host-csrftoken=")
    for flag in ("Secure", "HttpOnly", "Path=/"):
        assert flag in cookie, cookie
    assert "Domain=" not in cookie


def static_files_are_served(proxy: TlsProxy) -> None:
    """The page's style sheet, by its hashed name, from gunicorn (WhiteNoise): cached for
    years, compressed for a browser that accepts it."""
    visitor = LabSession(proxy, "visitor")
    page = visitor.get("/accounts/login/")
    sheets = re.findall(r'<link[^>]+href="(/static/[^"]+\.css)"', page.text)
    assert sheets, page.text[:2000]
    hashed = [s for s in sheets if re.search(r"\.[0-9a-f]{12}\.css$", s)]
    assert hashed == sheets, f"static names carry no content hash: {sheets}"
    css = visitor.get(sheets[-1], headers={"Accept-Encoding": "gzip"})
    assert css.headers["Content-Type"].startswith("text/css")
    assert css.headers["Cache-Control"] == "max-age=315360000, public, immutable"
    assert css.headers.get("Content-Encoding") == "gzip"
    assert len(css.text) > 100  # requests undid the compression
    missing = visitor.http.get(f"{LAB_URL}/static/app/no-such-file.css", timeout=30)
    assert missing.status_code == 404


def admin_logs_in(proxy: TlsProxy) -> LabSession:
    """The first admin signs in through the login page and lands on the admin home."""
    admin = LabSession(proxy, ADMIN["username"], ADMIN["password"])
    assert admin.home.url == f"{LAB_URL}/"
    assert 'id="card-admin-overview"' in admin.home.text
    assert admin.get("/api/me/").json()["roles"] == ["admin"]
    assert admin.http.cookies.get("__Host-sessionid")
    return admin


def every_asset_of_the_admin_pages_is_served(admin: LabSession) -> None:
    """The style sheets, scripts and images the admin's pages name (the home page,
    Django's admin, the API docs) all come from gunicorn by their hashed names."""
    assets = set()
    for path in ("/", "/admin/", "/api/docs/"):
        page = admin.get(path)
        assets |= set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text))
    assert len(assets) >= 5, assets
    for asset in sorted(assets):
        answer = admin.get(asset)
        assert "immutable" in answer.headers["Cache-Control"], asset


def mail_reaches_the_lab(lab) -> None:
    """A mail sent by the web host goes through the SMTP server set in the environment
    (Django's test mail, as the docs tell the admin to check it)."""
    lab["web"].manage("sendtestemail", "someone@lab.test")
    messages = lab["inbox"].messages()
    assert len(messages) == 1
    assert messages[0]["To"] == "someone@lab.test"
    assert messages[0]["From"] == "heartbench@lab.test"
    assert messages[0]["Subject"].startswith("Test email from")


def invite_an_annotator(lab, proxy: TlsProxy, admin: LabSession) -> None:
    """The admin invites an annotator from the team page; a worker host sends the mail
    through the lab's SMTP server; the annotator follows its link (the site's https
    address), chooses a username and a password, lands on their home page, and later
    logs in with them. The used link is refused."""
    team = admin.get("/team/")
    assert 'data-testid="invite-link"' in team.text
    invited = admin.fill(
        "/team/invite/",
        {"email": ANNOTATOR["email"], "roles": ["primary_annotator"]},
        action="/team/invite/",
    )
    assert invited.url == f"{LAB_URL}/team/"
    assert f"Invitation queued for {ANNOTATOR['email']}" in invited.text

    # The mail is sent by a worker, never by the web host: it waits in the broker until
    # host-b's worker starts. That worker stops again before the generation run is
    # launched, whose messages must wait for both hosts.
    host = lab["hosts"]["host-b"]
    wait_until_ready(host.start_worker())
    inbox, deadline = lab["inbox"], time.monotonic() + 60
    while len(inbox.messages()) < 2:  # the test mail, then the invitation
        assert time.monotonic() < deadline, "the invitation mail never reached the inbox"
        time.sleep(0.2)
    host.stop()
    mail = inbox.messages()[-1]
    assert (mail["To"], mail["From"]) == (ANNOTATOR["email"], "heartbench@lab.test")
    assert mail["Subject"] == "You are invited to heartbench"
    body = mail.get_payload(decode=True).decode()
    links = re.findall(rf"{re.escape(LAB_URL)}/team/join/[^/\s]+/", body)
    assert len(links) == 1, body
    row = admin.get("/team/").text.split(ANNOTATOR["email"], 1)[1].split("</tr>", 1)[0]
    assert "<td>Sent</td>" in row, row  # the attempt was recorded as sent

    visitor = LabSession(proxy, "invited")
    joined = visitor.fill(
        links[0],
        {
            "username": ANNOTATOR["username"],
            "password1": ANNOTATOR["password"],
            "password2": ANNOTATOR["password"],
        },
    )
    assert joined.url == f"{LAB_URL}/"
    assert "your account is ready" in joined.text
    assert 'id="card-primary_annotator"' in joined.text
    assert 'id="card-admin-overview"' not in joined.text
    assert visitor.get("/api/me/").json()["roles"] == ["primary_annotator"]

    refused = LabSession(proxy, "someone else").get(links[0], status=410)
    assert "already been used" in refused.text

    annotator = LabSession(proxy, ANNOTATOR["username"], ANNOTATOR["password"])
    assert annotator.home.url == f"{LAB_URL}/"
    assert 'id="card-primary_annotator"' in annotator.home.text
    assert ANNOTATOR["username"] in admin.get("/team/").text


def unit_ledger(database: LabDatabase, run_id: int) -> list[tuple]:
    """Per unit of the run: (id, status, attempts, candidates, response calls, calls,
    the unit's recorded cost, the sum of its calls' costs)."""
    return database.query(
        "SELECT u.id, u.status, u.attempts,"
        " (SELECT count(*) FROM annotation_candidate c WHERE c.unit_id = u.id),"
        " (SELECT count(*) FROM annotation_llmcallrecord r"
        "  WHERE r.unit_id = u.id AND r.stage = 'response'),"
        " (SELECT count(*) FROM annotation_llmcallrecord r WHERE r.unit_id = u.id),"
        " u.cost_usd,"
        " (SELECT coalesce(sum(r.cost_usd), 0) FROM annotation_llmcallrecord r"
        "  WHERE r.unit_id = u.id)"
        " FROM annotation_generationunit u WHERE u.run_id = %s ORDER BY u.id",
        [run_id],
    )


def every_call_was_recorded(lab) -> None:
    """Every request the provider answered is a call record: nothing paid for was lost."""
    (recorded,) = lab["database"].query("SELECT count(*) FROM annotation_llmcallrecord")[0]
    assert recorded == len(lab["provider"].requests)


def units_run_by_host(lab, since: dict[str, int]) -> dict[str, int]:
    """How many units each host's worker ran to success since the log offsets ``since``
    (a unit its run's budget refused ends its task with 'pending' instead)."""
    done = {}
    for name, host in lab["hosts"].items():
        text = (host.dir / "worker.log").read_text()[since[name] :]
        ends = re.findall(rf"Task {re.escape(UNIT_TASK)}\[[0-9a-f-]+\] succeeded in .*", text)
        done[name] = sum("'succeeded'" in line for line in ends)
    return done


def stop_a_run_at_its_budget_and_resume(lab, admin: LabSession) -> None:
    """The admin sees the estimate priced on the launch page and launches a run with a
    budget of one cent; the workers of both hosts (still up) stop it at the budget with
    nothing lost; resumed from its page without a budget, it finishes, every unit run
    once."""
    database = lab["database"]
    since = {n: len((h.dir / "worker.log").read_text()) for n, h in lab["hosts"].items()}
    page = admin.get("/corpus/generation/new/")
    estimate = page.text[page.text.index('data-testid="cost-estimate"') :]
    assert "price not configured" not in estimate  # the web host has the prices
    launched = admin.submit(
        admin.form(page, id="generation-run-form"),
        {"characters": None, "scenarios": None, "Budget (USD)": str(BUDGET)},
        page_url=page.url,
        button="launch",
    )
    run_id = int(re.search(r"/corpus/generation/(\d+)/$", launched.url).group(1))
    assert 'data-testid="run-budget">Budget: $0.01<' in launched.text

    # Stopped, and no unit in flight, on two looks a second apart.
    deadline, calm = time.monotonic() + WAIT_SECONDS, 0
    while calm < 2:
        status = admin.get(f"/api/generation/runs/{run_id}/").json()["status"]
        states = {row[1] for row in unit_ledger(database, run_id)}
        stopped = status == "stopped_at_budget" and states <= {"pending", "succeeded"}
        calm = calm + 1 if stopped else 0
        assert status in ("running", "stopped_at_budget"), (status, states)
        assert time.monotonic() < deadline, f"the run did not stop: {status} {states}"
        time.sleep(1 if stopped else 0.3)

    # Nothing lost: a unit finished with its one candidate and its calls' cost, or waits
    # untouched; the units in flight when the budget was reached (one per worker process
    # at most) finished.
    ledger = unit_ledger(database, run_id)
    done = [row for row in ledger if row[1] == "succeeded"]
    waiting = [row for row in ledger if row[1] == "pending"]
    assert done and waiting and len(done) <= WORKER_PROCESSES, ledger
    for _, _, attempts, candidates, responses, _, cost, calls_cost in done:
        assert (attempts, candidates, responses) == (1, 1, 1), ledger
        assert cost == calls_cost > 0, ledger
    assert {row[2:] for row in waiting} == {(0, 0, 0, 0, 0, 0)}, ledger
    assert sum(row[6] for row in ledger) >= BUDGET
    every_call_was_recorded(lab)

    run_page = admin.get(f"/corpus/generation/{run_id}/")
    assert "Stopped at its budget of $0.01" in run_page.text
    resume = admin.form(run_page, action=f"/corpus/generation/{run_id}/resume/")
    admin.submit(resume, {"New budget (USD)": ""}, page_url=run_page.url)
    deadline = time.monotonic() + WAIT_SECONDS
    while (run := admin.get(f"/api/generation/runs/{run_id}/").json())["status"] not in (
        "finished",
        "finished_with_failures",
    ):
        assert time.monotonic() < deadline, f"the resumed run did not finish: {run['progress']}"
        time.sleep(0.5)
    assert run["status"] == "finished", run["progress"]

    ledger = unit_ledger(database, run_id)
    assert len(ledger) == UNITS
    assert {row[1:5] for row in ledger} == {("succeeded", 1, 1, 1)}, ledger
    assert all(cost == calls_cost for *_, cost, calls_cost in ledger), ledger
    calls = database.query(
        "SELECT r.unit_id, r.stage, count(*), sum(r.attempt_count) FROM "
        "annotation_llmcallrecord r JOIN annotation_generationunit u ON r.unit_id = u.id "
        "WHERE u.run_id = %s GROUP BY r.unit_id, r.stage",
        [run_id],
    )
    assert {(count, tries) for _, _, count, tries in calls} == {(1, 1)}, calls
    every_call_was_recorded(lab)
    # Both hosts' workers claimed units of this run (before the stop, and after the
    # resume); together they ran each unit once.
    by_host = units_run_by_host(lab, since)
    assert by_host["host-a"] and by_host["host-b"], by_host
    assert sum(by_host.values()) == UNITS, by_host
    for host in lab["hosts"].values():
        host.stop()


def queued_units(broker_url: str) -> dict[str, int]:
    """{Celery task id: generation unit id} of every unit message waiting in the broker."""
    client = redis_client.Redis.from_url(broker_url)
    out = {}
    for raw in client.lrange("celery", 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] != UNIT_TASK:
            continue
        args = json.loads(base64.b64decode(message["body"]))[0]
        out[message["headers"]["id"]] = args[0]
    client.close()
    return out


def units_done_by(log_text: str, tasks: dict[str, int]) -> list[int]:
    """The units whose task this worker finished (its log's "succeeded" lines)."""
    done = re.findall(rf"Task {re.escape(UNIT_TASK)}\[([0-9a-f-]+)\] succeeded", log_text)
    assert set(done) <= set(tasks), "a worker ran a unit message nobody queued"
    return [tasks[task_id] for task_id in done]


def generation_on_two_hosts(lab, admin: LabSession) -> int:
    """The admin launches a small generation run on the site; its messages wait in the
    broker until the workers of host-a and host-b start; both hosts take units, and
    every unit ends with one candidate, run once."""
    web, database = lab["web"], lab["database"]
    web.manage("shell", "-c", SEED_CORPUS)
    # No character or scenario chosen: every pair (the parser would otherwise post the
    # first option of each list, as a browser does for a single choice).
    answer = admin.fill(
        "/corpus/generation/new/",
        {"characters": None, "scenarios": None},
        id="generation-run-form",
        button="launch",
    )
    run_id = int(re.search(r"/corpus/generation/(\d+)/$", answer.url).group(1))
    tasks = queued_units(lab["broker"].url)
    units = {
        row[0]
        for row in database.query(
            "SELECT id FROM annotation_generationunit WHERE run_id = %s", [run_id]
        )
    }
    assert len(units) == UNITS and set(tasks.values()) == units

    workers = {name: host.start_worker() for name, host in lab["hosts"].items()}
    wait_until_ready(*workers.values())
    lab["provider_opened"].set()
    deadline = time.monotonic() + WAIT_SECONDS
    while (run := admin.get(f"/api/generation/runs/{run_id}/").json())["status"] not in (
        "finished",
        "finished_with_failures",
    ):
        assert time.monotonic() < deadline, f"the run did not finish: {run['progress']}"
        time.sleep(0.5)
    assert run["status"] == "finished", run["progress"]

    done = {name: units_done_by(log.read_text(), tasks) for name, (_, log) in workers.items()}
    assert done["host-a"] and done["host-b"], f"one host took every unit: {done}"
    assert sorted(done["host-a"] + done["host-b"]) == sorted(units), done
    for name, (_, log) in workers.items():
        assert f"celery@{name} ready." in log.read_text()

    rows = database.query(
        "SELECT u.id, u.status, u.attempts, count(c.id) FROM annotation_generationunit u "
        "LEFT JOIN annotation_candidate c ON c.unit_id = u.id WHERE u.run_id = %s "
        "GROUP BY u.id",
        [run_id],
    )
    assert {(status, attempts, candidates) for _, status, attempts, candidates in rows} == {
        ("succeeded", 1, 1)
    }, rows
    # Each stage of each unit called its model once, with one HTTP try, carrying the
    # shared key (the fake provider refuses any other); a unit whose screening kept few
    # enough memories skips re-ranking.
    calls = database.query(
        "SELECT r.unit_id, r.stage, count(*), sum(r.attempt_count) FROM "
        "annotation_llmcallrecord r JOIN annotation_generationunit u ON r.unit_id = u.id "
        "WHERE u.run_id = %s GROUP BY r.unit_id, r.stage",
        [run_id],
    )
    assert {(count, tries) for _, _, count, tries in calls} == {(1, 1)}, calls
    stages = {}
    for unit, stage, _, _ in calls:
        stages.setdefault(unit, set()).add(stage)
    assert set(stages) == units
    assert all({"screening", "response"} <= s for s in stages.values()), stages
    assert len(calls) == len(lab["provider"].requests)
    # The workers stay up: the budget step runs on both hosts too, then stops them.
    return run_id


def backup_and_restore(lab) -> None:
    """The documented backup (pg_dump), restored into an empty database (pg_restore):
    every table's rows and every sequence equal; the restored database is up to date
    for ``migrate``."""
    database, restored, web = lab["database"], lab["restored"], lab["web"]
    dump = lab["tmp"] / "heartbench.dump"
    web.stop()  # as the documented restore does: nothing writes while the copy is taken
    subprocess.run(
        ["pg_dump", *database.cli(), "-Fc", "--no-owner", "-f", str(dump), database.name],
        check=True,
    )
    restored.create()
    subprocess.run(
        [
            "pg_restore",
            *restored.cli(),
            "--no-owner",
            "--exit-on-error",
            "-d",
            restored.name,
            str(dump),
        ],
        check=True,
    )
    original, copy = table_contents(database.info), table_contents(restored.info)
    assert original["annotation_candidate"][0] == 2 * UNITS  # the two runs
    assert original["auth_user"][0] == 2  # the admin and the invited annotator
    differing = sorted(k for k in original.keys() | copy.keys() if original.get(k) != copy.get(k))
    assert not differing, differing
    check = web.manage("migrate", "--check", env={"DATABASE_URL": restored.url}, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def the_restored_copy_serves(lab, run_id: int) -> None:
    """The web host started again on the restored database: the admin signs in with the
    same password and finds the run as it was, finished, every unit succeeded."""
    web = lab["web"]
    web.env["DATABASE_URL"] = lab["restored"].url
    proxy = serve(lab)
    admin = LabSession(proxy, ADMIN["username"], ADMIN["password"])
    run = admin.get(f"/api/generation/runs/{run_id}/").json()
    assert run["status"] == "finished"
    progress = run["progress"]
    assert progress["total"] == progress["by_status"]["succeeded"] == UNITS, progress


# --- the rehearsal -----------------------------------------------------------------------


def test_a_lab_installs_serves_mails_runs_on_two_hosts_and_restores_a_backup(lab):
    install(lab)
    proxy = serve(lab)
    https_is_enforced(proxy)
    static_files_are_served(proxy)
    admin = admin_logs_in(proxy)
    every_asset_of_the_admin_pages_is_served(admin)
    mail_reaches_the_lab(lab)
    invite_an_annotator(lab, proxy, admin)
    run_id = generation_on_two_hosts(lab, admin)
    stop_a_run_at_its_budget_and_resume(lab, admin)
    backup_and_restore(lab)
    the_restored_copy_serves(lab, run_id)
    assert proxy.forwarded > 0
