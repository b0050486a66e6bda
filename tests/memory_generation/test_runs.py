"""Memory generation runs in this process: creation and its refusals, batches filled
with provenance, dispatch within the concurrency, bad output, an unreachable provider,
cancel and resume, retry of failed batches."""

from collections import Counter
from decimal import Decimal

import pytest

from annotation.corpus.models import Memory
from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryCallRecord,
    MemoryRun,
)
from annotation.memory_generation.prompts import latest_prompt
from annotation.memory_generation.services.batches import memory_batch_execute
from annotation.memory_generation.services.runs import (
    MemoryGenerationError,
    run_cancel,
    run_create,
    run_resume,
    run_retry_failed,
    run_start,
)
from heartbench_site.celery import app
from llm.testing.replies import json_reply
from tests.factories import MemoryFactory, UserFactory

from .fixtures_runs import (
    PASS,
    frozen_profile,
    plan_for,
    slot_of,
)

pytestmark = pytest.mark.django_db
Status = MemoryRun.Status
BatchStatus = MemoryBatch.Status


@pytest.fixture
def eager():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def launch(plans, *, django_capture_on_commit_callbacks, execute=True, **options):
    admin = UserFactory()
    run = run_create(user=admin, plan_ids=[p.pk for p in plans], **options)
    with django_capture_on_commit_callbacks(execute=execute):
        run_start(run_id=run.pk, user=admin)
    run.refresh_from_db()
    return run


def test_a_run_fills_every_slot_with_provenance(
    memory_provider, eager, django_capture_on_commit_callbacks
):
    profile = frozen_profile()
    plan = plan_for(profile, {14: 3, 15: 2, 30: 2})
    run = launch([plan], django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)

    assert run.status == Status.FINISHED
    assert run.model_name == "fake-memory-writer" and run.provider == "anthropic"
    memories = list(Memory.objects.order_by("sequence"))
    assert [m.memory_id for m in memories] == [f"MEM_CHAR_01_N_HIGH_{n:04d}" for n in range(1, 8)]
    assert [m.anonymized_id for m in memories][:2] == ["MEM_CHAR_01_0001", "MEM_CHAR_01_0002"]
    assert Counter(m.event_age for m in memories) == {14: 3, 15: 2, 30: 2}
    assert {m.life_stage for m in memories} == {"adolescence", "age_30_transition"}
    prompt = latest_prompt()
    for memory in memories:
        generated = memory.generation
        batch = generated.batch
        assert memory.source == (
            f"generated: run {run.pk}, batch {batch.index}, slot {generated.slot}, "
            f"memory prompt v{prompt.number}, fake-memory-writer"
        )
        assert generated.tier == batch.slots[generated.slot]["tier"]
        assert generated.prompt == prompt and generated.call.ok
        assert memory.timeline.endswith(f"({memory.event_age} years old)")
    assert set(run.batches.values_list("status", flat=True)) == {BatchStatus.SUCCEEDED}
    calls = MemoryCallRecord.objects.filter(batch__run=run)
    assert calls.count() == 7 and all(c.tokens_in > 0 for c in calls)
    cost = sum(b.cost_usd for b in run.batches.all())
    assert cost > Decimal("0")
    # the anti-duplication window grows with each stored memory
    users = [slot_of(r)["user"] for r in memory_provider.requests]
    assert "- (none yet)" in users[0]
    assert memories[0].context in users[1] and memories[1].context in users[2]


def test_sequence_numbers_continue_after_the_characters_memories(
    memory_provider, eager, django_capture_on_commit_callbacks
):
    profile = frozen_profile()
    for seq in (1, 2, 5):
        MemoryFactory(
            character=profile.character,
            sequence=seq,
            memory_id=f"MEM_CHAR_01_N_HIGH_{seq:04d}",
            anonymized_id=f"MEM_CHAR_01_{seq:04d}",
        )
    launch(
        [plan_for(profile, {20: 2})],
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )
    assert list(Memory.objects.order_by("sequence").values_list("sequence", flat=True)) == [
        1,
        2,
        5,
        6,
        7,
    ]


def test_a_run_is_refused_without_a_provider_or_with_bad_choices(monkeypatch, memory_provider):
    admin = UserFactory()
    profile = frozen_profile()
    plan = plan_for(profile, {14: 1})
    with pytest.raises(MemoryGenerationError, match="Unknown plan 999"):
        run_create(user=admin, plan_ids=[999])
    with pytest.raises(MemoryGenerationError, match="must add up to 1"):
        run_create(user=admin, plan_ids=[plan.pk], tier_shares={"A": 1, "B": 1, "C": 0, "D": 0})
    with pytest.raises(MemoryGenerationError, match="between 1 and 256"):
        run_create(user=admin, plan_ids=[plan.pk], concurrency=0)
    draft = frozen_profile("CHAR_02", frozen=False)
    with pytest.raises(MemoryGenerationError, match="CHAR_02 v1 .* is not frozen"):
        run_create(user=admin, plan_ids=[plan_for(draft, {14: 1}).pk])
    custom = frozen_profile("CHAR_03", neuroticism=0.6)
    with pytest.raises(MemoryGenerationError, match="no single defining trait"):
        run_create(user=admin, plan_ids=[plan_for(custom, {14: 1}).pk])
    run = run_create(user=admin, plan_ids=[plan.pk])
    with pytest.raises(MemoryGenerationError, match=f"already in memory run {run.pk}"):
        run_create(user=admin, plan_ids=[plan.pk])
    for name in ("KIND", "MODEL", "BASE_URL"):
        monkeypatch.delenv(f"HEARTBENCH_MEMORY_{name}")
    with pytest.raises(MemoryGenerationError, match="No memory generation provider"):
        run_create(user=admin, plan_ids=[plan.pk])
    assert MemoryRun.objects.count() == 1


def test_dispatch_keeps_the_concurrency_and_each_ending_batch_sends_the_next(
    memory_provider, django_capture_on_commit_callbacks
):
    plans = [
        plan_for(frozen_profile("CHAR_01"), {6: 2, 12: 3, 20: 1}),
        plan_for(frozen_profile("CHAR_02", neuroticism=0.1), {6: 1, 12: 1}),
    ]
    run = launch(
        plans,
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
        execute=False,
        concurrency=2,
    )
    batches = list(run.batches.order_by("index"))
    # interleaved across the characters
    assert [b.character.key for b in batches] == [
        "CHAR_01",
        "CHAR_02",
        "CHAR_01",
        "CHAR_02",
        "CHAR_01",
    ]
    queued = run.batches.filter(queued_at__isnull=False)
    assert sorted(queued.values_list("slot_count", flat=True)) == [2, 3]  # largest first
    first = queued.order_by("-slot_count").first()
    with django_capture_on_commit_callbacks(execute=False) as sent:
        memory_batch_execute(batch_id=first.pk, send_next=True)
    assert len(sent) == 1  # the one place it freed
    assert run.batches.filter(queued_at__isnull=False).count() == 2
    assert Memory.objects.filter(character__key="CHAR_01").count() == 3


def test_bad_output_is_sent_back_with_its_problems_then_the_batch_fails_keeping_its_memories(
    memory_provider, responder, eager, django_capture_on_commit_callbacks
):
    def wrong_age(memory, slot):
        return {**memory, "timeline": f"adolescence ({slot['age'] + 1} years old)"}

    responder.faults = [PASS, PASS]  # the first two slots are fine
    good_then_bad = {"n": 0}

    def edit(memory, slot):
        good_then_bad["n"] += 1
        return memory if good_then_bad["n"] <= 2 else wrong_age(memory, slot)

    responder.edit = edit
    profile = frozen_profile()
    run = launch(
        [plan_for(profile, {14: 4})],
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )

    assert run.status == Status.FINISHED_WITH_FAILURES
    batch = run.batches.get()
    assert batch.status == BatchStatus.FAILED
    assert batch.error_kind == "semantic_invalid"
    assert batch.error_message.startswith("Slot 2 (age 14): the model's memory was refused 3 times")
    assert "timeline states age 15, but this memory is for age 14" in batch.error_message
    assert GeneratedMemory.objects.filter(batch=batch).count() == 2  # kept
    refused = MemoryCallRecord.objects.filter(batch=batch, ok=False)
    assert refused.count() == 3
    assert all("timeline states age 15" in r.problems[0] for r in refused)
    asked_again = [r for r in memory_provider.requests if "It cannot be stored" in r.turns()[-1][1]]
    assert len(asked_again) == 2

    responder.edit = None
    memory_provider.requests.clear()
    with django_capture_on_commit_callbacks(execute=True):
        run_retry_failed(run_id=run.pk, user=None)
    run.refresh_from_db()
    assert run.status == Status.FINISHED
    assert len(memory_provider.requests) == 2  # only the empty slots
    assert sorted(GeneratedMemory.objects.values_list("slot", flat=True)) == [0, 1, 2, 3]
    assert Memory.objects.count() == 4


def test_schema_problems_get_rounds_then_fail_the_batch(
    memory_provider, responder, eager, django_capture_on_commit_callbacks
):
    responder.always = json_reply({"id": "x", "timeline": "teen (14 years old)"})
    run = launch(
        [plan_for(frozen_profile(), {14: 2})],
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )
    batch = run.batches.get()
    assert batch.status == BatchStatus.FAILED and batch.error_kind == "schema_invalid"
    assert "'context' is a required property" in batch.error_message
    assert len(memory_provider.requests) == 3  # three structured-output rounds, one slot
    assert not Memory.objects.exists()


def test_an_unreachable_provider_fails_the_batch_with_a_clear_reason(
    monkeypatch, memory_provider, eager, django_capture_on_commit_callbacks
):
    monkeypatch.setenv("HEARTBENCH_MEMORY_BASE_URL", "http://127.0.0.1:9")  # nothing listens
    run = launch(
        [plan_for(frozen_profile(), {14: 2})],
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )
    assert run.status == Status.FINISHED_WITH_FAILURES
    batch = run.batches.get()
    assert batch.error_kind == "connection_error"
    assert batch.error_message.startswith("Slot 0 (age 14): the call failed after 2 requests")
    call = MemoryCallRecord.objects.get()
    assert not call.ok and call.error_kind == "connection_error"


def test_a_worker_without_a_provider_fails_the_batch_naming_the_variables(
    monkeypatch, memory_provider, eager, django_capture_on_commit_callbacks
):
    admin = UserFactory()
    run = run_create(user=admin, plan_ids=[plan_for(frozen_profile(), {14: 1}).pk])
    for name in ("KIND", "MODEL", "BASE_URL"):
        monkeypatch.delenv(f"HEARTBENCH_MEMORY_{name}")
    with django_capture_on_commit_callbacks(execute=True):
        run_start(run_id=run.pk, user=admin)
    batch = run.batches.get()
    assert batch.status == BatchStatus.FAILED and batch.error_kind == "not_configured"
    assert "HEARTBENCH_MEMORY_KIND" in batch.error_message


def test_cancel_then_resume_generates_each_slot_once(
    memory_provider, django_capture_on_commit_callbacks
):
    plans = [plan_for(frozen_profile(), {14: 3, 25: 2})]
    run = launch(
        plans,
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
        execute=False,
        concurrency=1,
    )
    first, second = run.batches.order_by("-slot_count", "index")
    memory_batch_execute(batch_id=first.pk, send_next=False)  # one batch done
    run_cancel(run_id=run.pk, user=None)
    run.refresh_from_db()
    assert run.status == Status.CANCELLED
    second.refresh_from_db()
    assert second.status == BatchStatus.CANCELLED
    # a message sent before the cancel arrives late: nothing happens
    memory_batch_execute(batch_id=second.pk, send_next=False)
    assert Memory.objects.count() == 3

    with pytest.raises(MemoryGenerationError, match="only a run that has not started"):
        run_start(run_id=run.pk, user=None)
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            run_resume(run_id=run.pk, user=None)
    finally:
        app.conf.task_always_eager = False
    run.refresh_from_db()
    assert run.status == Status.FINISHED
    assert Memory.objects.count() == 5
    assert len(memory_provider.requests) == 5  # no slot asked for twice
    with pytest.raises(MemoryGenerationError, match="only a cancelled run can be resumed"):
        run_resume(run_id=run.pk, user=None)
