"""A drafting job through a real Celery worker process against the fake provider server:
the admin launches, the worker drafts, the profiles wait in profile review."""

import time

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.services import jobs
from annotation.corpus.models import ProfileVersion
from annotation.profile_review.selectors import profile_review_queue

from .conftest import provider_for

WAIT_S = 90


def wait_for_job(job_id: int) -> DraftingJob:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        job = DraftingJob.objects.get(pk=job_id)
        if job.status != DraftingJob.Status.RUNNING:
            return job
        time.sleep(0.3)
    raise AssertionError(f"drafting job {job_id} did not finish; see the worker log")


def test_a_job_runs_through_a_worker_into_the_profile_review_queue(
    celery_worker_factory, fake_server, settings, drafting_admin
):
    settings.HEARTBENCH_DRAFTING_PROVIDER = provider_for(fake_server)
    celery_worker_factory(
        extra_env={
            "HEARTBENCH_DRAFTING_KIND": "openai",
            "HEARTBENCH_DRAFTING_BASE_URL": fake_server.base_url("openai"),
            "HEARTBENCH_DRAFTING_MODEL": "fake-drafter",
            "HEARTBENCH_DRAFTING_TIMEOUT": "5",
        },
        name="drafting",
    )
    job = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_07", "A", "high"), design.neutral("CHAR_11")],
        design=DraftingJob.Design.CUSTOM,
    )
    job = wait_for_job(job.pk)
    assert job.status == DraftingJob.Status.FINISHED
    assert len(fake_server.requests) == 2
    versions = {v.character.key: v for v in ProfileVersion.objects.select_related("character")}
    assert versions["CHAR_07"].agreeableness == 0.95 and versions["CHAR_07"].number == 1
    assert versions["CHAR_11"].big_five == dict.fromkeys("OCEAN", 0.5)
    rows = {r.character.key: r.state for r in profile_review_queue(user=drafting_admin)}
    assert rows == {"CHAR_07": "to review", "CHAR_11": "to review"}
    # Delivered again (a redelivery after the worker lost its ack): nothing changes. The
    # one-process worker takes tasks in order, so a later job finishing means the
    # redeliveries before it have run.
    from annotation.character_drafting.celery_tasks import execute_character_draft

    for draft in job.drafts.all():
        execute_character_draft.delay(draft.pk)
    later = jobs.drafting_job_create(
        user=drafting_admin,
        plan=[design.anchored("CHAR_08", "A", "low")],
        design=DraftingJob.Design.CUSTOM,
    )
    assert wait_for_job(later.pk).status == DraftingJob.Status.FINISHED
    assert ProfileVersion.objects.count() == 3 and len(fake_server.requests) == 3
    assert sorted(job.drafts.values_list("deliveries", flat=True)) == [1, 1]


pytestmark = pytest.mark.django_db(transaction=True)
