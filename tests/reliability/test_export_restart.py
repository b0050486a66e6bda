"""An export job survives a worker restart (issue #23): a real `celery worker` is killed
(SIGKILL, its whole process group) in the middle of a build; the job stays running, no
file is stored, and the build's message comes back to a new worker, which finishes the
job. The stored zip is the one a rebuild of the same data gives, byte for byte."""

import hashlib
import os
import signal
import time

import pytest
from django.contrib.auth.models import Group

from adjudication.export import jobs
from adjudication.export.models import ExportJob
from adjudication.export.services import build_export
from annotation.corpus_import.importing import import_files
from core.roles import Role
from tests.corpus_import import as_json, release_files, small_characters
from tests.factories import UserFactory

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

RELEASE_LAYOUT = ("scenarios.json", "ground_truth.json", "mcq.json")


def wait_for(predicate, what, timeout=180.0, interval=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")


def job_now(pk) -> ExportJob:
    return ExportJob.objects.get(pk=pk)


def test_a_build_killed_mid_way_is_finished_by_the_next_worker(
    celery_worker_factory, release_dir, settings, tmp_path
):
    for role in Role:
        Group.objects.get_or_create(name=role.value)
    # The release's 673 items over stand-ins with enough memories that a build takes
    # seconds: long enough to be caught in the middle.
    import_files([("characters.json", as_json({"characters": small_characters(11, 40)}))])
    import_files(release_files(release_dir, RELEASE_LAYOUT))
    root = tmp_path / "exports"
    settings.EXPORT_ROOT = root
    env = {
        "EXPORT_ROOT": str(root),
        # redeliver a dead worker's message after 3 s, looking every second
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1",
        "CELERY_UNACKED_MUTEX_EXPIRE": "2",
    }
    doomed = celery_worker_factory(extra_env=env, name="export-doomed")
    admin = UserFactory(roles=[Role.ADMIN])
    job, created = jobs.export_job_start(kind=ExportJob.Kind.FINAL_SET, user=admin)
    assert created  # autocommit: queued at once

    wait_for(
        lambda: job_now(job.pk).status == ExportJob.Status.RUNNING and job_now(job.pk).done >= 1,
        "the build to be under way",
    )
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=10)
    killed = job_now(job.pk)
    assert killed.status == ExportJob.Status.RUNNING, "the build ended before the kill"
    assert not killed.file_name and not list(root.glob("*.zip"))
    # Starting again meanwhile returns the interrupted build, not a second one.
    again, created = jobs.export_job_start(kind=ExportJob.Kind.FINAL_SET, user=admin)
    assert again.pk == job.pk and not created

    celery_worker_factory(extra_env=env, name="export-replacement")
    wait_for(
        lambda: job_now(job.pk).status in (ExportJob.Status.FINISHED, ExportJob.Status.FAILED),
        "the replacement worker to finish the build",
        interval=0.5,
    )
    finished = job_now(job.pk)
    assert finished.status == ExportJob.Status.FINISHED, finished.error
    assert ExportJob.objects.count() == 1
    stored = jobs.job_file(finished).read_bytes()
    rebuilt = build_export().zip_bytes()
    assert hashlib.sha256(stored).hexdigest() == finished.sha256
    assert stored == rebuilt and finished.size == len(rebuilt)
