"""A screen through a real Celery worker (a separate process against the test database):
the characters' tasks are queued on commit, the worker screens them, the run finishes
and its progress counts every text."""

import time

from audit.hygiene import services
from audit.hygiene.models import HygieneFlag, HygieneRun
from audit.hygiene.rules import Rule
from core.llm_runs.models import RunStatus
from tests.factories import CharacterFactory, MemoryFactory

from .conftest import EMAIL

WAIT_SECONDS = 60


def test_a_screen_runs_on_the_worker(corpus, admin_user, celery_worker_factory):
    other = CharacterFactory(key="CHAR_06")
    MemoryFactory(character=other, sequence=1, content_full=f"Mail me at {EMAIL} tonight.")
    celery_worker_factory()
    run = services.hygiene_run_start(created_by=admin_user)  # commits: the tasks are sent
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in (RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES):
            break
        time.sleep(0.3)
    assert run.status == RunStatus.FINISHED, run.status
    assert run.text_done == run.text_total == 8
    emails = HygieneFlag.objects.filter(run=run, rule=Rule.EMAIL)
    assert sorted(f.character.key for f in emails) == ["CHAR_05", "CHAR_06"]
    assert HygieneRun.objects.count() == 1
