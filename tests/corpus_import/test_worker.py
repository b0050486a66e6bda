"""An import job through a real Celery worker process over Redis."""

import time

import pytest

from annotation.corpus.models import Memory, ProfileVersion
from annotation.corpus_import.celery_tasks import run_import_job
from annotation.corpus_import.models import ImportJob
from annotation.corpus_import.services import import_job_create
from tests.factories import UserFactory

from . import as_json, small_characters

WAIT_SECONDS = 120


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_an_import_job(celery_worker_process, release_dir):
    job = import_job_create(
        files=[
            ("scenarios.json", (release_dir / "scenarios.json").read_bytes()),
            ("characters.json", as_json(small_characters())),
        ],
        user=UserFactory(),
    )

    run_import_job.delay(job.pk)

    deadline = time.monotonic() + WAIT_SECONDS
    job.refresh_from_db()
    while job.status in (ImportJob.Status.PENDING, ImportJob.Status.RUNNING):
        assert time.monotonic() < deadline, f"job still {job.status} after {WAIT_SECONDS}s"
        assert celery_worker_process.poll() is None, "the worker process died"
        time.sleep(0.25)
        job.refresh_from_db()

    assert job.status == ImportJob.Status.SUCCEEDED, job.errors
    assert job.summary["counts"]["scenarios"]["created"] == 64
    assert job.summary["counts"]["memories"]["created"] == 8
    assert ProfileVersion.objects.count() == 2
    assert Memory.objects.filter(character__key="CHAR_02").count() == 4
