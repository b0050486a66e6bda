"""The one-command demo runs on SQLite, which takes one writer at a time: two saves of a
participant that overlap (an A–D keypress's autosave and "Save and go to the next item")
must wait for each other, not answer 500 "database is locked" (issue 32). The demo's
settings make every transaction take the write lock when it begins and wait for it; the
control shows the same overlap failing without that. (The browser test in
tests/browser/test_study_comfort.py shows the page never sends the two together.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("sqlite_overlap.py")


def overlap(tmp_path, *args) -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "heartbench_site.settings.local",
        "DJANGO_READ_DOT_ENV_FILE": "false",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_overlapping_saves_on_the_demo_database_wait_for_each_other(tmp_path):
    found = overlap(tmp_path)
    assert found["engine"].endswith("sqlite3")
    assert found["options"]["transaction_mode"] == "IMMEDIATE"
    assert found["options"]["timeout"] >= 5
    assert found["errors"] == []
    assert found["saves"] == 2


def test_without_the_transaction_mode_the_same_overlap_fails(tmp_path):
    found = overlap(tmp_path, "deferred")
    assert "transaction_mode" not in found["options"]
    assert found["saves"] == 1
    assert len(found["errors"]) == 1 and "database is locked" in found["errors"][0]
