"""The lab's monthly cap per provider stops a memory generation run too (issue #36): once
the memory provider has reached its cap, the next batch is not taken up, the run stops
at budget naming the provider and the cap, and a resume (refused while the cap holds)
fills the remaining slots, each asked for once."""

from decimal import Decimal

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import MemoryBatch, MemoryRun
from annotation.memory_generation.services.batches import memory_batch_execute
from annotation.memory_generation.services.runs import (
    MemoryGenerationError,
    run_create,
    run_resume,
    run_start,
)
from core.llm_runs.models import MonthlySpendingCap
from heartbench_site.celery import app
from tests.factories import UserFactory

from .fixtures_runs import frozen_profile, plan_for

pytestmark = pytest.mark.django_db
Status = MemoryRun.Status
BatchStatus = MemoryBatch.Status


def test_a_memory_run_stops_at_its_providers_cap_and_resumes(
    memory_provider, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setenv("HEARTBENCH_MEMORY_PRICE_IN", "3000")
    monkeypatch.setenv("HEARTBENCH_MEMORY_PRICE_OUT", "15000")
    MonthlySpendingCap.objects.create(provider="anthropic", cap_usd=Decimal("1.00"))
    admin = UserFactory()
    plans = [plan_for(frozen_profile(), {14: 3, 25: 2})]
    run = run_create(user=admin, plan_ids=[p.pk for p in plans], concurrency=2)
    with django_capture_on_commit_callbacks(execute=False):  # the test runs the batches
        run_start(run_id=run.pk, user=admin)
    first, second = run.batches.order_by("-slot_count", "index")

    memory_batch_execute(batch_id=first.pk, send_next=False)
    memory_batch_execute(batch_id=second.pk, send_next=False)

    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET
    assert "monthly cap for anthropic" in run.stop_reason and "cap $1.00" in run.stop_reason
    assert MemoryBatch.objects.get(pk=first.pk).status == BatchStatus.SUCCEEDED
    assert MemoryBatch.objects.get(pk=second.pk).status == BatchStatus.PENDING
    done = Memory.objects.count()
    assert done == first.slot_count
    with pytest.raises(MemoryGenerationError, match="monthly cap for anthropic"):
        run_resume(run_id=run.pk, user=admin)

    MonthlySpendingCap.objects.update(cap_usd=Decimal("100000"))
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run_resume(run_id=run.pk, user=admin)
    finally:
        app.conf.task_always_eager = False

    run.refresh_from_db()
    assert run.status == Status.FINISHED
    assert Memory.objects.count() == 5
    assert len(memory_provider.requests) == 5  # no slot asked for twice
