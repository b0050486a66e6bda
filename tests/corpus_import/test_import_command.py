"""`manage.py import_corpus PATH...`: the summary on success, one problem per line and a
non-zero exit status on failure."""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from adjudication.arbitration.models import ReferenceResponse
from annotation.corpus.models import Scenario

from . import as_json, corpus_counts, small_characters

ROOT = Path(__file__).resolve().parents[2]


def manage(*args) -> subprocess.CompletedProcess:
    """Run manage.py in a separate process against the test database."""
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="heartbench_site.settings.test")
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.django_db(transaction=True)
def test_command_imports_the_release_and_exits_zero(release_dir):
    result = manage("import_corpus", str(release_dir))

    assert result.returncode == 0, result.stderr
    assert "scenarios.json: scenarios, 64 records" in result.stdout
    assert "SOURCE.md: not an importable file" in result.stdout
    assert any(
        line.startswith("references") and "673 created" in line
        for line in result.stdout.splitlines()
    )
    assert "Import complete." in result.stdout
    assert Scenario.objects.count() == 64
    assert ReferenceResponse.objects.count() == 673


@pytest.mark.django_db(transaction=True)
def test_command_prints_each_problem_and_exits_non_zero(tmp_path):
    doc = small_characters()
    doc[0]["big_five"]["N"] = 2
    doc[1]["core_patterns"] = doc[1]["core_patterns"][:3]
    path = tmp_path / "characters.json"
    path.write_bytes(as_json(doc))

    result = manage("import_corpus", str(path))

    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert (
        f"{path}: record CHAR_01, field big_five.N: must be a number between 0 and 1, got 2"
        in lines
    )
    assert any(line.startswith(f"{path}: record CHAR_02, field core_patterns:") for line in lines)
    assert "2 problems found; nothing was imported." in result.stderr
    assert sum(corpus_counts().values()) == 0


@pytest.mark.django_db
def test_command_json_output_and_missing_path(tmp_path):
    path = tmp_path / "characters.json"
    path.write_bytes(as_json(small_characters()))
    out = StringIO()
    call_command("import_corpus", str(path), "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["counts"]["memories"] == {"created": 8, "updated": 0, "unchanged": 0}

    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_corpus", str(tmp_path / "missing.json"), stderr=StringIO())
