"""The API guide's scripting blocks run as written (issue #23; docs/api/scripting.md since
issue #36 moved them out of the README): each is taken from the page, run in its own
Python process against a live server over real HTTP, and its
effect checked in the database."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.comparison.models import ComparisonJudgment
from core.roles import Role
from tests.comparison.helpers import assign, make_pair, people
from tests.export import conftest as export_fixtures
from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

secret_corpus = export_fixtures.secret_corpus  # one final item, ready to export

SCRIPTING = Path(__file__).resolve().parents[2] / "docs" / "api" / "scripting.md"


def snippet(name: str) -> str:
    found = re.search(
        rf"<!-- scripting:{name} -->\n```python\n(.*?)```", SCRIPTING.read_text(), re.DOTALL
    )
    assert found, f"docs/api/scripting.md has no scripting:{name} block"
    return found.group(1)


def run(code: str, base_url: str, username: str, password: str = DEFAULT_PASSWORD, **env):
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={
            **os.environ,
            "HEARTBENCH_URL": base_url,
            "HEARTBENCH_USERNAME": username,
            "HEARTBENCH_PASSWORD": password,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def groups(transactional_db):
    from django.contrib.auth.models import Group

    for role in Role:
        Group.objects.get_or_create(name=role.value)


def test_an_annotator_pulls_the_queue_and_submits_a_judgment(groups, live_server):
    who = people()
    pair = make_pair(key="CHAR_61")
    assign(pair, who["annotators"], who["admin"])
    annotator = who["annotators"][0]

    out = run(snippet("judge"), live_server.url, annotator.username)

    assert out.splitlines()[0] == "1 comparisons to do"
    assert [line[0] for line in out.splitlines()[1:4]] == ["A", "B", "C"]
    assert out.splitlines()[-1] == "recorded, version 1"
    judgment = ComparisonJudgment.objects.get(assignment__annotator=annotator)
    assert judgment.selection_rationale == "B's decision follows from the memories it cites."


def test_an_admin_builds_downloads_and_reads_the_final_set(
    groups, live_server, celery_worker_factory, settings, tmp_path, secret_corpus
):
    from rest_framework.authtoken.models import Token

    from adjudication.export.models import ExportJob
    from tests.factories import UserFactory

    root = tmp_path / "exports"
    settings.EXPORT_ROOT = root
    celery_worker_factory(extra_env={"EXPORT_ROOT": str(root)}, name="readme-export")
    admin = UserFactory(username="readme-admin", roles=[Role.ADMIN])
    token = Token.objects.create(user=admin).key

    out = run(snippet("export"), live_server.url, admin.username, HEARTBENCH_TOKEN=token)

    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.FINISHED and job.created_by == admin
    assert out.strip() == f"1 items, {job.sha256}"
