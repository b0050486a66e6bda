"""The demo settings (settings/local.py) use DATABASE_URL when it is set, SQLite
demo.sqlite3 otherwise. Each case imports the settings in a fresh interpreter: the
module reads the environment once, at import."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import json, heartbench_site.settings.local as s; "
    "db = s.DATABASES['default']; print(json.dumps([db['ENGINE'], str(db['NAME'])]))"
)


def demo_database(**environ):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update({"DJANGO_READ_DOT_ENV_FILE": "false", **environ})
    out = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_without_database_url_the_demo_uses_its_sqlite_file():
    assert demo_database() == ["django.db.backends.sqlite3", str(ROOT / "demo.sqlite3")]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://demo@127.0.0.1:5432/heartbench_demo", ["postgresql", "heartbench_demo"]),
        ("sqlite:////tmp/another-demo.sqlite3", ["sqlite3", "/tmp/another-demo.sqlite3"]),
    ],
)
def test_a_database_url_is_honoured(url, expected):
    engine, name = demo_database(DATABASE_URL=url)
    assert engine.endswith(expected[0]) and name == expected[1]


def test_the_one_command_demo_builds_on_sqlite(tmp_path):
    """`make demo`'s default: migrate and set up the demo on a SQLite file, as
    scripts/demo.sh does. Every other test runs on PostgreSQL, so a query SQLite lacks
    (JSON containment, say) would otherwise break the demo unseen."""
    database = tmp_path / "demo.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "CELERY"))}
    env.update(
        DJANGO_READ_DOT_ENV_FILE="false",
        DJANGO_SETTINGS_MODULE="heartbench_site.settings.local",
        DATABASE_URL=f"sqlite:///{database}",
    )
    for command in (["migrate", "--noinput"], ["demo_setup"]):
        out = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr[-3000:]
    assert "admin-demo-pass" in out.stdout
    import sqlite3

    with sqlite3.connect(database) as db:
        (finished,) = db.execute(
            "SELECT count(*) FROM adjudication_judgerun WHERE status = 'finished'"
        ).fetchone()
        (final,) = db.execute(
            "SELECT count(*) FROM adjudication_mcqitem WHERE status = 'final'"
        ).fetchone()
    assert finished == 1 and final == 673
