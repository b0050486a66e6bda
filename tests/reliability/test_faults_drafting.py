"""Faults during a character drafting job through real Celery workers (issue #33).

- the worker is killed (SIGKILL) while drafts are in flight, and a new one starts;
- the broker (Redis) restarts while drafts are in flight;
- the provider answers some drafts with output that is not JSON, or JSON that breaks
  the profile schema;
- the provider cannot be reached at all (nothing listens on its port).

Either way the job completes, or shows its failed drafts with their reasons, a retry
once the provider is fixed completes it, and no draft yields two profile versions.
"""

import os
import re
import signal
import time

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.models import CharacterDraft, DraftingCall, DraftingJob
from annotation.character_drafting.services import jobs
from annotation.corpus.models import Character, ProfileVersion
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import FakeProviderServer
from llm.testing.replies import json_reply, non_json_reply
from tests.character_drafting.conftest import DraftingResponder
from tests.factories import UserFactory
from tests.generation.helpers import ClosedProvider

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("through_workers", "role_groups"),
]

WAIT_SECONDS = 120
JobStatus = DraftingJob.Status
DraftStatus = CharacterDraft.Status
FINAL = (JobStatus.FINISHED, JobStatus.FINISHED_WITH_FAILURES, JobStatus.CANCELLED)
# Redeliver a dead worker's tasks after 3 s, looking every second; a worker killed
# while holding the restore mutex must not block the others.
REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "3",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
    "CELERY_UNACKED_MUTEX_EXPIRE": "2",
}


def plan():
    return [
        design.anchored("CHAR_07", "A", "high"),
        design.anchored("CHAR_08", "A", "low"),
        design.anchored("CHAR_09", "C", "high"),
        design.neutral("CHAR_11"),
    ]


def drafting_env(server, *, timeout=3.0, max_retries=0) -> dict[str, str]:
    return {
        "HEARTBENCH_DRAFTING_KIND": "openai",
        "HEARTBENCH_DRAFTING_BASE_URL": server.base_url("openai"),
        "HEARTBENCH_DRAFTING_MODEL": "fake-drafter",
        "HEARTBENCH_DRAFTING_TIMEOUT": str(timeout),
        "HEARTBENCH_DRAFTING_MAX_RETRIES": str(max_retries),
        "HEARTBENCH_DRAFTING_BACKOFF_BASE": "0.01",
        "HEARTBENCH_DRAFTING_BACKOFF_CAP": "0.02",
    }


@pytest.fixture
def launch(settings):
    """``launch(server)`` configures this process's drafting model against ``server``
    and launches a job over ``plan()`` (queued once it commits)."""
    admin = UserFactory(username="drafting-admin", roles=[Role.ADMIN])

    def start(server, keys=None) -> DraftingJob:
        settings.HEARTBENCH_DRAFTING_PROVIDER = ProviderConfig.from_env(
            "HEARTBENCH_DRAFTING", drafting_env(server)
        )
        chosen = [p for p in plan() if keys is None or p.char_key in keys]
        return jobs.drafting_job_create(user=admin, plan=chosen, design=DraftingJob.Design.CUSTOM)

    start.admin = admin
    return start


def wait_for(job, done, worker, what="the job to finish"):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        job.refresh_from_db()
        if done(job):
            return job
        states = list(job.drafts.values_list("char_key", "status"))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {states}"
        if worker is not None:
            assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def finished(job):
    return job.status in FINAL


def assert_one_version_per_draft(job):
    """Every drafted character has exactly one version, the one its draft names."""
    drafts = list(job.drafts.all())
    succeeded = [d for d in drafts if d.status == DraftStatus.SUCCEEDED]
    assert all(d.profile_version_id for d in succeeded)
    versions = ProfileVersion.objects.filter(character__key__in=[d.char_key for d in drafts])
    assert sorted(versions.values_list("pk", flat=True)) == sorted(
        d.profile_version_id for d in succeeded
    ), "a draft yielded two profile versions, or none"
    assert set(versions.values_list("number", flat=True)) <= {1}
    for draft in drafts:
        if draft.status == DraftStatus.FAILED:
            assert draft.error_kind and draft.error_message, f"{draft.char_key} failed silently"
            assert not Character.objects.filter(key=draft.char_key).exists()


def test_killing_the_worker_mid_job_loses_and_duplicates_nothing(celery_worker_factory, launch):
    with FakeProviderServer(responder=DraftingResponder(), latency_s=0.6) as server:
        env = {**drafting_env(server), **REDELIVERY}
        worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="doomed")
        job = launch(server)

        def one_done_one_in_flight(job):
            statuses = list(job.drafts.values_list("status", flat=True))
            return DraftStatus.SUCCEEDED in statuses and DraftStatus.RUNNING in statuses

        wait_for(job, one_done_one_in_flight, worker, "a draft done and one in flight")
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        interrupted = set(
            job.drafts.filter(status=DraftStatus.RUNNING).values_list("pk", flat=True)
        )
        assert interrupted

        replacement = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
        wait_for(job, finished, replacement)

    assert job.status == JobStatus.FINISHED
    assert job.drafts.count() == 4
    assert_one_version_per_draft(job)
    # the drafts the kill interrupted were redelivered and taken up a second time; each
    # draft has one accepted answer on record, even one whose answer was recorded just
    # before the kill (it is finished from the record, not asked for again)
    assert all(d.deliveries == 2 for d in job.drafts.filter(pk__in=interrupted))
    for draft in job.drafts.all():
        assert draft.calls.filter(ok=True).count() == 1, draft.char_key


def test_a_draft_killed_after_its_answer_was_recorded_finishes_from_the_record(launch, settings):
    """The state a worker killed between recording the accepted answer and creating the
    profile version leaves: the draft running, an accepted call on record, no version.
    Taken up again, the draft is finished from that answer; the model is not asked."""
    from annotation.character_drafting.services.execution import character_draft_execute

    with FakeProviderServer(responder=DraftingResponder()) as server:
        settings.HEARTBENCH_DRAFTING_PROVIDER = ProviderConfig.from_env(
            "HEARTBENCH_DRAFTING", drafting_env(server)
        )
        job = jobs.drafting_job_create(
            user=launch.admin,
            plan=[design.anchored("CHAR_07", "A", "high"), design.anchored("CHAR_12", "A", "high")],
            design=DraftingJob.Design.CUSTOM,
            queue=False,
        )
        done, killed = job.drafts.get(char_key="CHAR_07"), job.drafts.get(char_key="CHAR_12")
        assert character_draft_execute(draft_id=done.pk).status == DraftStatus.SUCCEEDED
        accepted = done.calls.get()
        # the killed worker had claimed the draft and recorded the same accepted answer
        CharacterDraft.objects.filter(pk=killed.pk).update(status=DraftStatus.RUNNING, deliveries=1)
        accepted.pk = None
        accepted.draft = killed
        accepted.parsed = {**accepted.parsed, "char_key": "CHAR_12"}
        accepted.save()
        asked = len(server.requests)

        killed = character_draft_execute(draft_id=killed.pk)
        assert len(server.requests) == asked

    assert killed.status == DraftStatus.SUCCEEDED and killed.deliveries == 2
    assert killed.profile_version.character.key == "CHAR_12"
    assert killed.calls.count() == 1
    job.refresh_from_db()
    assert job.status == JobStatus.FINISHED
    assert_one_version_per_draft(job)


def test_a_redis_restart_mid_job_loses_and_duplicates_nothing(
    own_redis, celery_worker_factory, launch
):
    with FakeProviderServer(responder=DraftingResponder(), latency_s=1.0) as server:
        env = {**drafting_env(server), **REDELIVERY, "CELERY_BROKER_URL": own_redis.url}

        def start_worker():
            return celery_worker_factory(extra_env=env, pool="threads", concurrency=2, name="redis")

        worker = start_worker()
        job = launch(server)

        def one_done_one_to_do(job):
            statuses = list(job.drafts.values_list("status", flat=True))
            return DraftStatus.SUCCEEDED in statuses and (
                DraftStatus.PENDING in statuses or DraftStatus.RUNNING in statuses
            )

        wait_for(job, one_done_one_to_do, worker, "a draft done and one to do")
        own_redis.stop()
        assert not own_redis.ping()
        time.sleep(2)  # the worker notices the broker is gone and keeps retrying
        own_redis.start()

        # A worker that lost its broker connection mid-ack may exit; it is restarted, as
        # docker-compose would. Nothing may be lost or duplicated either way.
        deadline = time.monotonic() + WAIT_SECONDS
        while not finished(job):
            assert time.monotonic() < deadline, (
                f"waited {WAIT_SECONDS}s: {list(job.drafts.values_list('char_key', 'status'))}"
            )
            if worker.poll() is not None:
                worker = start_worker()
            time.sleep(0.3)
            job.refresh_from_db()

    assert job.status == JobStatus.FINISHED
    assert_one_version_per_draft(job)
    assert Character.objects.count() == 4


def test_a_message_the_broker_lost_is_sent_again_when_a_worker_connects(
    own_redis, celery_worker_factory, launch
):
    """A restart can drop a message in flight; the rows know the draft is still waiting.
    Here one draft's message is removed from the queue before any worker runs: the
    worker sends it again when it connects, and the other draft runs exactly once."""
    import redis as redis_client

    with FakeProviderServer(responder=DraftingResponder()) as server:
        job = launch(server, keys={"CHAR_07", "CHAR_11"})
        broker = redis_client.Redis.from_url(own_redis.url)
        assert broker.llen("celery") == 2
        assert broker.rpop("celery") is not None  # the oldest message, lost
        env = {**drafting_env(server), "CELERY_BROKER_URL": own_redis.url}
        worker = celery_worker_factory(extra_env=env, pool="threads", concurrency=2)
        wait_for(job, finished, worker)
        assert len(server.requests) == 2

    assert job.status == JobStatus.FINISHED
    assert_one_version_per_draft(job)
    assert set(job.drafts.values_list("deliveries", flat=True)) == {1}


class BrokenKeys(DraftingResponder):
    """Answers the drafts of the keys in ``broken`` ({key: answer}) with that answer,
    every time; every other draft with the demo profile it asks for."""

    def __init__(self):
        super().__init__()
        self.broken: dict[str, object] = {}

    def __call__(self, req):
        user = "\n".join(text for role, text in req.turns() if role == "user")
        for key, answer in self.broken.items():
            if re.search(rf"\b{key}\b", user):
                return answer
        return super().__call__(req)


def test_bad_output_fails_its_drafts_with_a_reason_and_a_retry_completes_them(
    celery_worker_factory, launch, settings
):
    settings.HEARTBENCH_DRAFTING_MAX_ATTEMPTS = 2
    responder = BrokenKeys()
    responder.broken = {
        "CHAR_08": non_json_reply("Here is the character you asked for: a quiet teacher."),
        "CHAR_09": json_reply({"name": "The careful planner"}),  # most fields missing
    }
    with FakeProviderServer(responder=responder) as server:
        worker = celery_worker_factory(
            extra_env=drafting_env(server), pool="threads", concurrency=2
        )
        job = launch(server, keys={"CHAR_07", "CHAR_08", "CHAR_09"})
        wait_for(job, finished, worker)

        assert job.status == JobStatus.FINISHED_WITH_FAILURES
        drafts = {d.char_key: d for d in job.drafts.all()}
        assert drafts["CHAR_07"].status == DraftStatus.SUCCEEDED
        for key, kind in (("CHAR_08", "invalid_json"), ("CHAR_09", "schema_invalid")):
            draft = drafts[key]
            assert draft.status == DraftStatus.FAILED
            assert draft.error_kind == "invalid_profile"
            assert draft.error_message.startswith(
                f"The model's draft of {key} still broke the drafting rules after 2 attempts; "
                "nothing was created."
            )
            assert draft.problems and draft.problems[0].startswith(f"{kind}: "), draft.problems
            # each attempt is on record, none accepted; no character, no version
            calls = list(DraftingCall.objects.filter(draft=draft).order_by("attempt"))
            assert [(c.attempt, c.ok) for c in calls] == [(1, False), (2, False)]
            assert all(c.error_kind == kind for c in calls)
        assert "not valid JSON" in drafts["CHAR_08"].problems[0]
        assert "is a required property" in drafts["CHAR_09"].problems[0]
        assert_one_version_per_draft(job)
        assert list(Character.objects.values_list("key", flat=True)) == ["CHAR_07"]

        responder.broken.clear()  # the provider is fixed
        jobs.drafting_job_retry_failed(job_id=job.pk, user=launch.admin)
        wait_for(job, finished, worker)

    assert job.status == JobStatus.FINISHED
    assert_one_version_per_draft(job)
    for key in ("CHAR_08", "CHAR_09"):
        draft = job.drafts.get(char_key=key)
        assert draft.deliveries == 2 and not draft.error_kind and not draft.problems
        # the retry's call is numbered after the failed ones
        assert list(draft.calls.order_by("attempt").values_list("attempt", "ok")) == [
            (1, False),
            (2, False),
            (3, True),
        ]


def test_an_unreachable_provider_fails_drafts_by_name_and_a_retry_completes_them(
    celery_worker_factory, launch
):
    with ClosedProvider(DraftingResponder()) as provider:
        worker = celery_worker_factory(
            extra_env=drafting_env(provider, max_retries=1), pool="threads", concurrency=2
        )
        job = launch(provider, keys={"CHAR_07", "CHAR_11"})
        wait_for(job, finished, worker)

        assert job.status == JobStatus.FINISHED_WITH_FAILURES
        for draft in job.drafts.all():
            assert draft.status == DraftStatus.FAILED
            assert draft.error_kind == "connection_error"
            assert draft.error_message.startswith(
                "The drafting model (openai fake-drafter) could not be used: connection_error: "
                "ConnectError"
            )
            assert "Connection refused" in draft.error_message
            call = DraftingCall.objects.get(draft=draft)
            assert (call.ok, call.error_kind, call.tokens_in) == (False, "connection_error", 0)
        # nothing half-stored: no character, no version
        assert not Character.objects.exists() and not ProfileVersion.objects.exists()

        provider.open()  # the provider is back, on the same address
        jobs.drafting_job_retry_failed(job_id=job.pk, user=launch.admin)
        wait_for(job, finished, worker)

    assert job.status == JobStatus.FINISHED
    assert_one_version_per_draft(job)
    assert set(Character.objects.values_list("key", flat=True)) == {"CHAR_07", "CHAR_11"}
    assert set(job.drafts.values_list("deliveries", flat=True)) == {2}
