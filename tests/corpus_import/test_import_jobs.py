"""Import jobs run in-process: the outcome is stored on the job, never raised."""

import pytest

from annotation.corpus.models import Memory
from annotation.corpus_import.models import ImportJob
from annotation.corpus_import.services import import_job_create, import_job_run
from tests.factories import UserFactory

from . import as_json, corpus_counts, small_characters

pytestmark = pytest.mark.django_db


def test_a_job_imports_its_files_and_stores_the_summary():
    user = UserFactory()
    job = import_job_create(files=[("characters.json", as_json(small_characters()))], user=user)
    assert job.status == ImportJob.Status.PENDING
    assert job.files.get().size == len(as_json(small_characters()))

    job = import_job_run(job_id=job.pk)

    assert job.status == ImportJob.Status.SUCCEEDED
    assert job.started_at and job.finished_at
    assert job.summary["counts"]["memories"]["created"] == 8
    assert job.errors == []
    assert Memory.objects.get(memory_id="MEM_CHAR_01_N_HIGH_0001").source == (
        f"import job {job.pk}: characters.json"
    )


def test_running_a_finished_job_again_changes_nothing():
    job = import_job_create(files=[("c.json", as_json(small_characters()))], user=UserFactory())
    first = import_job_run(job_id=job.pk)
    counts = corpus_counts()

    again = import_job_run(job_id=job.pk)

    assert again.status == ImportJob.Status.SUCCEEDED
    assert again.finished_at == first.finished_at
    assert corpus_counts() == counts


def test_a_rejected_import_fails_the_job_with_its_problems():
    doc = small_characters()
    doc[0]["episodic_memory_set"][1]["emotion_signature"]["intensity"] = "high"
    job = import_job_create(files=[("characters.json", as_json(doc))], user=UserFactory())

    job = import_job_run(job_id=job.pk)

    assert job.status == ImportJob.Status.FAILED
    assert job.errors == [
        {
            "file": "characters.json",
            "record": "CHAR_01 / memory MEM_CHAR_01_N_HIGH_0002",
            "field": "emotion_signature.intensity",
            "message": 'must be a number between 0 and 1, got "high"',
        }
    ]
    assert job.summary == {}
    assert sum(corpus_counts().values()) == 0
