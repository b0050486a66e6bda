"""Shared fixtures: the release folder and a real Celery worker process (browser: tests/browser)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from heartbench_site.release import find_release_dir

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


@pytest.fixture(scope="session")
def release_dir() -> Path:
    assert RELEASE_DIR.is_dir(), f"the public release is expected at {RELEASE_DIR}"
    return RELEASE_DIR


@pytest.fixture
def celery_worker_process(transactional_db, settings):
    """Start `celery worker` as a separate process against the test database.

    The test must commit its data (transactional_db) for the worker to see it.
    """
    from django.db import connection

    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="heartbench_site.settings.test")
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    TEST_OUTPUT.mkdir(exist_ok=True)
    log_path = TEST_OUTPUT / f"celery-worker-{os.getpid()}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "heartbench_site",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "--loglevel=INFO",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-n",
            f"test-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
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
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)
