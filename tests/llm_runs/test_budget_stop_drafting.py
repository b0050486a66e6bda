"""A character drafting job's budget and the lab's monthly cap (issue #36): once the job's
recorded cost reaches its budget it takes up no further draft, keeps the profiles it
drafted, and a resume with a higher budget (or none) drafts the rest, each once. Through
a real Celery worker over Redis, against the fake provider on loopback."""

import time
from decimal import Decimal

import pytest

from annotation.character_drafting import design
from annotation.character_drafting.models import DraftingCall, DraftingJob
from annotation.character_drafting.services import jobs
from annotation.character_drafting.services.common import DraftingError
from annotation.corpus.models import ProfileVersion
from core.llm_runs.models import MonthlySpendingCap
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.factories import UserFactory

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120
Status = DraftingJob.Status
PLAN = [
    design.anchored("CHAR_01", "N", "high"),
    design.anchored("CHAR_02", "E", "low"),
    design.neutral("CHAR_03"),
    design.anchored("CHAR_04", "O", "high"),
]


@pytest.fixture
def drafting_server():
    with FakeProviderServer(responder=DemoResponder(seed=7)) as server:
        yield server


def worker_env(server) -> dict:
    """The worker's drafting model, at prices where one draft costs dollars."""
    return {
        "HEARTBENCH_DRAFTING_KIND": "openai",
        "HEARTBENCH_DRAFTING_BASE_URL": server.base_url("openai"),
        "HEARTBENCH_DRAFTING_MODEL": "fake-drafter",
        "HEARTBENCH_DRAFTING_TIMEOUT": "5",
        "HEARTBENCH_DRAFTING_PRICE_IN": "3000",
        "HEARTBENCH_DRAFTING_PRICE_OUT": "15000",
    }


def wait_for(job, done, worker, what):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        job.refresh_from_db()
        if done(job):
            return job
        drafts = list(job.drafts.values_list("char_key", "status", "deliveries"))
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS}s for {what}: {drafts}"
        assert worker.poll() is None, "the worker process died"
        time.sleep(0.2)


def settled(job) -> bool:
    return job.status == Status.STOPPED_AT_BUDGET and not job.drafts.filter(status="running")


def assert_nothing_lost_or_twice(job):
    """Every draft is drafted once (one call, one delivery, one profile version), or
    still waiting with no call made."""
    for draft in job.drafts.all():
        calls = DraftingCall.objects.filter(draft=draft).count()
        if draft.status == "succeeded":
            assert (calls, draft.deliveries) == (1, 1), draft.char_key
            assert ProfileVersion.objects.filter(character__key=draft.char_key).count() == 1
            assert draft.cost_usd > 0
        else:
            assert draft.status == "pending", (draft.char_key, draft.status)
            assert (calls, draft.deliveries, draft.cost_usd) == (0, 0, 0), draft.char_key


def start(settings, celery_worker_factory, server, monkeypatch):
    settings.HEARTBENCH_DRAFTING_PROVIDER = ProviderConfig(
        kind="openai", model="fake-drafter", base_url=server.base_url("openai"), timeout=5.0
    )
    env = worker_env(server)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return celery_worker_factory(extra_env=env, name="drafting-budget")


def test_a_drafting_job_stops_at_its_budget_and_a_resume_finishes_it(
    settings, celery_worker_factory, drafting_server, monkeypatch
):
    worker = start(settings, celery_worker_factory, drafting_server, monkeypatch)
    admin = UserFactory(roles=[Role.ADMIN])
    job = jobs.drafting_job_create(
        user=admin, plan=PLAN, design=DraftingJob.Design.CUSTOM, budget_usd="0.01"
    )
    assert job.budget_usd == Decimal("0.01")

    wait_for(job, settled, worker, "the job to stop at its budget")

    spent = sum(d.cost_usd for d in job.drafts.all())
    assert spent >= Decimal("0.01")
    assert spent == sum(c.cost_usd for c in DraftingCall.objects.filter(draft__job=job))
    # One draft costs more than the budget: the solo worker drafted one, then stopped.
    assert job.drafts.filter(status="succeeded").count() == 1
    assert job.drafts.filter(status="pending").count() == 3
    assert "budget of $0.01" in job.stop_reason
    assert_nothing_lost_or_twice(job)

    with pytest.raises(DraftingError, match="would stop again"):
        jobs.drafting_job_resume(job_id=job.pk, user=admin, budget_usd="0.01")

    jobs.drafting_job_resume(job_id=job.pk, user=admin, budget_usd=None)
    wait_for(job, lambda j: j.status == Status.FINISHED, worker, "the resumed job to finish")

    assert job.budget_usd is None and job.stop_reason == ""
    assert ProfileVersion.objects.count() == 4
    assert len(drafting_server.requests) == 4  # every character drafted once
    assert_nothing_lost_or_twice(job)


def test_a_drafting_job_stops_at_its_providers_monthly_cap(
    settings, celery_worker_factory, drafting_server, monkeypatch
):
    worker = start(settings, celery_worker_factory, drafting_server, monkeypatch)
    admin = UserFactory(roles=[Role.ADMIN])
    MonthlySpendingCap.objects.create(provider="openai", cap_usd=Decimal("1.00"))
    job = jobs.drafting_job_create(user=admin, plan=PLAN[:2], design=DraftingJob.Design.CUSTOM)

    wait_for(job, settled, worker, "the job to stop at the monthly cap")
    assert "monthly cap for openai" in job.stop_reason and "cap $1.00" in job.stop_reason
    assert job.drafts.filter(status="pending").count() == 1
    with pytest.raises(DraftingError, match="monthly cap for openai"):
        jobs.drafting_job_resume(job_id=job.pk, user=admin)

    MonthlySpendingCap.objects.update(cap_usd=Decimal("100000"))
    jobs.drafting_job_resume(job_id=job.pk, user=admin)
    wait_for(job, lambda j: j.status == Status.FINISHED, worker, "the resumed job to finish")
    assert_nothing_lost_or_twice(job)
    assert len(drafting_server.requests) == 2
