"""Shared fixtures: the release folder and a real Celery worker process (browser: tests/browser)."""

import gc
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.release import find_release_dir

# The test databases (tests/databases.py); fixtures of the memory generation run tests
# (a fake provider writing memories).
pytest_plugins = ["tests.databases", "tests.memory_generation.fixtures_runs"]

ROOT = Path(__file__).resolve().parent.parent
RELEASE_DIR = find_release_dir()
TEST_OUTPUT = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]


@pytest.fixture(autouse=True)
def celery_not_eager_by_default():
    """Every test starts with tasks going to the broker, as in production. A fixture
    that switches Celery to eager restores "the previous value"; without this reset a
    value left eager by one test (or read while pytest-django's settings fixture held
    it eager) would make a later "through a real worker" test run its tasks in-process."""
    from heartbench_site.celery import app

    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = False


def _live_server_tag() -> str:
    return f"hb-live-server-{os.getpid()}"


class _LiveServerGate:
    """Holds the live server's requests while a test's teardown empties the database.

    The teardown of a live-server test empties every table with one TRUNCATE. A request
    the browser sends as it leaves a page (a beacon on pagehide, which Playwright does not
    report; a last poll) would read tables beside it, the two deadlock, and PostgreSQL
    may cancel the TRUNCATE: the test fails and its rows stay for the next one. So the
    teardown closes this gate and waits for the requests in progress; a request arriving
    later waits at the gate until the database is empty and seeded again, and then finds
    nothing of the test it came from. Requests from the main thread (the test client)
    pass: only the live server's threads are held."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._open = True
        self._in_progress = 0

    @staticmethod
    def _from_server() -> bool:
        return threading.current_thread() is not threading.main_thread()

    def request_started(self, **kwargs) -> None:
        if not self._from_server():
            return
        with self._changed:
            self._changed.wait_for(lambda: self._open, timeout=120)
            self._in_progress += 1

    def request_finished(self, **kwargs) -> None:
        if not self._from_server():
            return
        with self._changed:
            self._in_progress = max(0, self._in_progress - 1)
            self._changed.notify_all()

    def close(self, *, wait: float = 15.0) -> None:
        """Hold new requests and wait (at most ``wait`` seconds) for those in progress."""
        with self._changed:
            self._open = False
            self._changed.wait_for(lambda: self._in_progress == 0, timeout=wait)

    def open(self) -> None:
        with self._changed:
            self._open = True
            self._changed.notify_all()


_GATE = _LiveServerGate()


def _tag_threads_connections(sender, connection, **kwargs):
    """Names a connection opened outside the main thread (a live server's request)."""
    if threading.current_thread() is not threading.main_thread():
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('application_name', %s, false)", [_live_server_tag()])


@pytest.fixture(autouse=True)
def _live_server_quiet_before_flush(request):
    """Set up after the database fixture, so its teardown runs before the flush: it
    closes the gate (``_LiveServerGate``) and then closes any connection a server thread
    left open (named by ``_tag_threads_connections``; a worker is another process). The
    gate opens again once the database is seeded for the next test
    (``pytest_runtest_teardown``)."""
    if "live_server" not in request.fixturenames:
        yield
        return
    from django.core.signals import request_finished, request_started
    from django.db import connection
    from django.db.backends.signals import connection_created

    request.getfixturevalue("transactional_db")
    _GATE.open()
    request_started.connect(_GATE.request_started, dispatch_uid="live-server-gate-started")
    request_finished.connect(_GATE.request_finished, dispatch_uid="live-server-gate-finished")
    connection_created.connect(_tag_threads_connections)
    try:
        yield
    finally:
        connection_created.disconnect(_tag_threads_connections)
        _GATE.close()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            [_live_server_tag()],
        )


@pytest.fixture(scope="session")
def release_dir() -> Path:
    assert RELEASE_DIR.is_dir(), f"the public release is expected at {RELEASE_DIR}"
    return RELEASE_DIR


def _start_celery_worker(
    *, extra_env=None, pool="solo", concurrency=1, name="test"
) -> tuple[subprocess.Popen, Path]:
    """A `celery worker` process against the test database, ready to take tasks.

    It runs in its own session (process group) so a test can SIGKILL it and whatever
    pool children it has at once: ``os.killpg(proc.pid, signal.SIGKILL)``.
    """
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    # The worker takes this test process's broker and export folder (under pytest-xdist,
    # its own Redis database and folder) unless the test names others in ``extra_env``;
    # it is not an xdist worker itself, so its settings take these as they are given.
    env = dict(
        os.environ,
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="heartbench_site.settings.test",
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        EXPORT_ROOT=str(settings.EXPORT_ROOT),
    )
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.update(extra_env or {})
    TEST_OUTPUT.mkdir(exist_ok=True)
    log_path = TEST_OUTPUT / f"celery-worker-{name}-{os.getpid()}-{time.monotonic_ns()}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "heartbench_site",
            "worker",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            "--loglevel=INFO",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"{name}-{os.getpid()}-{time.monotonic_ns()}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"celery worker exited early; see {log_path}:\n{log_path.read_text()}"
            )
        if "ready." in log_path.read_text():
            break
        time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError(f"celery worker did not become ready; see {log_path}")
    return proc, log_path


def _stop_celery_worker(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture
def celery_worker_process(transactional_db, settings):
    """Start `celery worker` as a separate process against the test database.

    The test must commit its data (transactional_db) for the worker to see it.
    """
    proc, _ = _start_celery_worker()
    yield proc
    _stop_celery_worker(proc)


@pytest.fixture
def celery_worker_factory(transactional_db, settings):
    """``start(extra_env={...}, pool="threads", concurrency=4)`` starts a worker with
    extra environment (provider settings, say: the worker is a separate process and
    reads its own environment); every worker started is stopped at teardown."""
    started = []

    def start(*, extra_env=None, pool="solo", concurrency=1, name="test"):
        proc, _ = _start_celery_worker(
            extra_env=extra_env, pool=pool, concurrency=concurrency, name=name
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        _stop_celery_worker(proc)


def pytest_collection_finish(session):
    """What every test shares (Django, the apps, the collected tests) is frozen out of
    the cyclic garbage collector's sight, and the collector runs less often: it walked
    those objects again and again, about a twentieth of the suite's CPU time."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 1_000)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@contextmanager
def offline_demo_providers():
    """Every generation family (and memory generation) on the offline demo provider,
    Celery eager: the demo's setup."""
    from django.test import override_settings

    from heartbench_site.celery import app
    from llm import ProviderConfig

    # Named per family as settings/base.py names them, so the families answer differently.
    families = ("claude", "gpt", "gemini")
    demo = {f: ProviderConfig(kind="offline_demo", model=f"offline-demo-{f}") for f in families}
    families_setting = {f: {"response": demo[f], "activation": demo[f]} for f in families}
    previous = app.conf.task_always_eager
    with (
        override_settings(HEARTBENCH_GENERATION_FAMILIES=families_setting),
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("HEARTBENCH_MEMORY_KIND", "offline_demo")
        app.conf.task_always_eager = True
        try:
            yield
        finally:
            app.conf.task_always_eager = previous


@pytest.fixture
def demo_providers():
    with offline_demo_providers():
        yield


@pytest.fixture(scope="module")
def demo_built(django_db_setup, django_db_blocker, release_dir):
    """The demo, built once for a test module and rolled back after it, as Django's
    TestCase.setUpTestData does: the module's tests (marked django_db, not transactional)
    each run in a savepoint inside the transaction that holds it. Building it per test
    cost about a minute each."""
    from django.db import transaction
    from django.test import TestCase

    from tests.demo_data import load_demo

    outer = transaction.atomic()
    outer._from_testcase = True  # durable blocks inside behave as under TestCase
    with django_db_blocker.unblock():
        outer.__enter__()
    try:
        # Inside the try: a build that fails still rolls the module's transaction back,
        # instead of leaving it open under every later test of the process.
        with (
            django_db_blocker.unblock(),
            offline_demo_providers(),
            TestCase.captureOnCommitCallbacks(execute=True),
        ):
            load_demo(release_dir)
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


# --- the migrations' seeded rows, back after every transactional test -------------------
#
# Data migrations seed rows every test may rely on (the role groups, the default prompts,
# quota weights, settings rows). A transactional test ends with a flush, which deletes them
# (its post-migrate signal makes content types and permissions again, not these). Run in one
# process the suite put every transactional test last; under pytest-xdist a process runs
# whole files in turn, so a plain test can follow a flush. After each transactional test
# the seeded rows are loaded again from a copy taken once per process, before any flush.

_SEEDS: list[tuple[type, str]] = []  # (model, its seeded rows as JSON)
_NOT_SEEDS = {"contenttypes", "sessions", "admin"}


def _is_transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0])):
        return True
    names = getattr(item, "fixturenames", ())
    return "transactional_db" in names or "live_server" in names


@pytest.fixture(scope="session", autouse=True)
def _seeded_rows(django_db_setup, django_db_blocker):
    from django.apps import apps
    from django.contrib.auth.models import Permission
    from django.core import serializers

    with django_db_blocker.unblock():
        for model in apps.get_models():
            if model._meta.app_label in _NOT_SEEDS or model is Permission:
                continue
            rows = model._default_manager.order_by("pk")
            if rows.exists():
                _SEEDS.append((model, serializers.serialize("json", rows)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    try:
        _reseed(item, nextitem)
    finally:
        _GATE.open()  # requests held during the flush meet the next test's database


def _reseed(item, nextitem) -> None:
    # After the last test the session's fixtures, the test database among them, are
    # already torn down: nothing left to reload.
    if nextitem is None or not _SEEDS or not _is_transactional(item):
        return
    from django.core import serializers
    from django.db import transaction
    from pytest_django.plugin import blocking_manager_key

    with item.config.stash[blocking_manager_key].unblock(), transaction.atomic():
        for model, data in _SEEDS:
            if not model._default_manager.exists():
                for obj in serializers.deserialize("json", data):
                    obj.save()
