"""A lab deployment on loopback, as docs/lab-admin/production.md describes it: the
production settings, a database of its own migrated by ``manage.py migrate``, gunicorn
serving the collected static files, Celery workers on "hosts" that share nothing but
the database URL, the broker URL and the secrets, an SMTP server catching the mail, and
a TLS reverse proxy in front of gunicorn (played by ``TlsProxy``).

tests/production/test_compose.py checks that docker-compose.yml runs the same commands
with the same environment names as these.
"""

from __future__ import annotations

import email
import os
import secrets
import subprocess
import sys
import time
from email.message import Message
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import requests
from requests.adapters import HTTPAdapter

from tests.rehearsal.client import Session
from tests.reliability.test_backup_restore import cli_args, conninfo

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = "heartbench_site.settings.production"
# The name people type in their browser; the proxy forwards to gunicorn on loopback.
LAB_HOST = "heartbench.lab.test"
LAB_URL = f"https://{LAB_HOST}"

# The commands docker-compose.yml runs (its web and worker services).
GUNICORN_COMMAND = ["gunicorn", "heartbench_site.wsgi:application"]
WORKER_COMMAND = ["celery", "-A", "heartbench_site", "worker"]
# What every host of the lab is given: the database, the broker, the secrets. Nothing else
# is shared (each host has its own home, temporary and working folders).
SHARED_ENV = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY")
# What the web host needs besides: the names people reach it by, and the mail server.
WEB_ENV = ("ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")
MAIL_ENV = ("EMAIL_HOST", "EMAIL_PORT", "DEFAULT_FROM_EMAIL")
# The first admin, created by `createsuperuser --noinput` (Django reads these names).
ADMIN_ENV = ("DJANGO_SUPERUSER_USERNAME", "DJANGO_SUPERUSER_EMAIL", "DJANGO_SUPERUSER_PASSWORD")


class Inbox:
    """The aiosmtpd handler: every message the SMTP server accepted."""

    def __init__(self):
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"

    def messages(self) -> list[Message]:
        return [email.message_from_bytes(e.original_content) for e in self.envelopes]


class LabDatabase:
    """A database of its own on the suite's PostgreSQL server, dropped at the end."""

    def __init__(self, name: str):
        from django.db import connection

        self.server = conninfo(connection.settings_dict["NAME"])
        self.name = name
        self.info = conninfo(name)

    @property
    def url(self) -> str:
        i = self.info
        return f"postgres://{i['user']}@{i['host']}:{i['port']}/{i['dbname']}"

    def create(self) -> LabDatabase:
        with psycopg.connect(**self.server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def drop(self) -> None:
        with psycopg.connect(**self.server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def query(self, sql: str, params=()) -> list[tuple]:
        with psycopg.connect(**self.info) as conn:
            return conn.execute(sql, params).fetchall()

    def cli(self) -> list[str]:
        """pg_dump/pg_restore's connection options (-h -p -U)."""
        return cli_args(self.info)


class Host:
    """One machine of the lab: its own home, temporary and working folders and its own
    environment, in which the shared values are set and nothing else of this process."""

    def __init__(self, name: str, directory: Path, shared: dict[str, str], **own: str):
        assert set(shared) >= set(SHARED_ENV), sorted(set(SHARED_ENV) - set(shared))
        self.name = name
        self.dir = directory
        self.work = directory / "work"
        for sub in ("home", "tmp", "work", "exports"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        self.env = {
            # The system's, as any machine has them.
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            # The code, installed on every host (the image, or a checkout and a virtualenv).
            "PYTHONPATH": str(ROOT),
            "HOME": str(directory / "home"),
            "TMPDIR": str(directory / "tmp"),
            "HOSTNAME": name,
            "EXPORT_ROOT": str(directory / "exports"),
            # Settings come from this environment only, never from a .env file beside the code.
            "DJANGO_READ_DOT_ENV_FILE": "false",
            **shared,
            **own,
        }
        self.processes: list[subprocess.Popen] = []

    def manage(self, *args: str, env: dict | None = None, check: bool = True):
        """``python manage.py ARGS`` on this host; the finished process (output as text)."""
        result = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=self.work,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=600,
        )
        if check:
            assert result.returncode == 0, (
                f"manage.py {' '.join(args)} on {self.name} failed:\n"
                f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return result

    def start(self, argv: list[str], log_name: str) -> tuple[subprocess.Popen, Path]:
        """A long-running program of this host, its output in ``log_name``."""
        log_path = self.dir / log_name
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", *argv],
                cwd=self.work,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(proc)
        return proc, log_path

    def start_gunicorn(self, port: int) -> subprocess.Popen:
        proc, log = self.start(
            [
                *GUNICORN_COMMAND,
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
                "--timeout",
                "120",
                "--access-logfile",
                "-",
            ],
            f"gunicorn-{port}.log",
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert proc.poll() is None, f"gunicorn exited:\n{log.read_text()[-3000:]}"
            try:
                # Inside the lab's network the health check is plain HTTP (exempt from
                # the HTTPS redirect), as docker-compose's is.
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=30).ok:
                    return proc
            except requests.ConnectionError:  # not listening yet
                pass
            time.sleep(0.3)
        raise AssertionError(f"gunicorn did not answer /healthz:\n{log.read_text()[-3000:]}")

    def start_worker(self) -> tuple[subprocess.Popen, Path]:
        """``celery -A heartbench_site worker`` named after this host, as it would be
        named on a machine called so (celery@<hostname>)."""
        return self.start(
            [
                *WORKER_COMMAND,
                "--loglevel=INFO",
                "--concurrency",
                "2",
                "-n",
                f"celery@{self.name}",
            ],
            "worker.log",
        )

    def stop(self) -> None:
        for proc in self.processes:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=10)
        self.processes = []


def wait_until_ready(*workers: tuple[subprocess.Popen, Path], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    waiting = list(workers)
    while waiting:
        for proc, log in list(waiting):
            text = log.read_text()
            assert proc.poll() is None, f"a worker exited ({log}):\n{text[-3000:]}"
            if " ready." in text:
                waiting.remove((proc, log))
        assert time.monotonic() < deadline, f"workers not ready: {[str(w[1]) for w in waiting]}"
        time.sleep(0.2)


def new_secret_key() -> str:
    return secrets.token_urlsafe(50)


class TlsProxy(HTTPAdapter):
    """Stands in for the lab's TLS reverse proxy: the browser speaks HTTPS to
    ``LAB_HOST``; the proxy forwards each request over plain HTTP to gunicorn on loopback,
    keeping the Host header and saying ``X-Forwarded-Proto: https``. The client sees
    only https:// addresses, so its secure cookies are sent as a browser's would be."""

    def __init__(self, port: int):
        super().__init__()
        self.port = port
        self.forwarded = 0

    def send(self, request, **kwargs):
        parts = urlsplit(request.url)
        assert parts.scheme == "https" and parts.hostname == LAB_HOST, request.url
        forwarded = request.copy()
        forwarded.url = urlunsplit(parts._replace(scheme="http", netloc=f"127.0.0.1:{self.port}"))
        forwarded.headers["Host"] = LAB_HOST
        forwarded.headers["X-Forwarded-Proto"] = "https"
        response = super().send(forwarded, **kwargs)
        response.url, response.request = request.url, request
        self.forwarded += 1
        return response


class LabSession(Session):
    """A person's browser on the lab's HTTPS address, through ``TlsProxy``; logged in
    through the login page when given a password."""

    def __init__(self, proxy: TlsProxy, username: str, password: str | None = None):
        super().__init__(LAB_URL, username, None)
        self.http.mount("https://", proxy)
        if password is None:
            return
        page = self.get("/accounts/login/")
        form = self.form(page, action="/accounts/login/")
        answer = self.submit(form, {"username": username, "password": password}, page_url=page.url)
        assert "/accounts/login/" not in answer.url, f"{username} could not log in"
        self.home = answer

    def csrf(self) -> str:
        # The production cookie carries the __Host- prefix (settings/production.py).
        return self.http.cookies.get("__Host-csrftoken", "")
