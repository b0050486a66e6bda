"""Running one memory batch, and the batch and run state changes around it (seed 000
App. B.5). The worker's task (``celery_tasks.execute_memory_batch``) calls
``memory_batch_execute``.

A batch asks for its empty slots one call at a time, in order. Each valid memory is
stored at once, in its own transaction, as a ``corpus.Memory`` with a
``GeneratedMemory`` row: under the batch's row lock a slot already filled is skipped
(``GeneratedMemory`` is unique per batch and slot as well), and the memory's sequence
number is the character's next one, taken under the ``Character`` row's lock, because
batches of one character run in parallel. So a redelivered task (a worker killed
mid-batch), a resumed or retried batch, or two deliveries at once never fill a slot
twice, and whatever a failed or cancelled batch stored stays.

Dispatch keeps at most ``run.concurrency`` batches in flight: a started run sends that
many, and each batch that ends sends the next pending ones (largest first, so the run
does not end waiting on one long batch). In flight means running, or pending with its
task sent (``queued_at``).

Lock order: run-level changes lock the run row, then touch batches; a batch's changes
lock the batch row, then the character row. Nothing takes a batch lock and then the run
lock in one transaction.
"""

import logging

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from annotation.corpus.models import Character, Memory
from annotation.memory_generation import prompts
from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryPromptVersion,
    MemoryRun,
)
from annotation.memory_generation.services.calls import (
    ConfigurationError,
    SlotFailed,
    generate_memory,
    provider_config,
    run_config,
)
from core.life_stages import life_stage_for_age
from core.llm_runs.services import RunFlow
from core.tasks import enqueue_on_commit

logger = logging.getLogger(__name__)

BatchStatus = MemoryBatch.Status
RunStatus = MemoryRun.Status
SOURCE_MAX = 300  # corpus.Memory.source


class MemoryGenerationError(Exception):
    """A request about a memory generation run that cannot be carried out as asked; the
    message is shown to the admin as is."""


# The run's transitions (core.llm_runs): a batch waiting again, or cancelled while
# waiting, has no task in flight.
def run_providers(run: MemoryRun) -> set[str]:
    """The provider this process's memory generation calls (for the lab's monthly caps,
    issue #36); none when it is not configured (the batch fails saying so)."""
    try:
        config = provider_config()
    except ConfigurationError:
        return set()
    return {config.kind.value} if config is not None else set()


FLOW = RunFlow(
    run_model=MemoryRun,
    unit_model=MemoryBatch,
    error=MemoryGenerationError,
    label="Memory run",
    reopen_fields={"queued_at": None},
    cancel_fields={"queued_at": None},
    providers=run_providers,
)


class Stopped(Exception):
    """The batch was cancelled or finished by another delivery of its task."""


# --- memory ids (App. B.6 / B.8 ids such as MEM_CHAR_03_C_HIGH_0002) ------------------
# The rule of annotation.corpus_import.vocabulary, which sits above this package.

BIG_FIVE_LETTERS = ("O", "C", "E", "A", "N")


def memory_label(profile) -> str | None:
    """The memory-id label of a profile's defining trait ("N_HIGH", "NEUTRAL"), None
    when the vector has no single anchor."""
    anchor = profile.trait_anchor
    if anchor.startswith("neutral"):
        return "NEUTRAL"
    parts = anchor.split()
    if len(parts) == 2 and parts[0] in BIG_FIVE_LETTERS and parts[1] in ("high", "low"):
        return f"{parts[0]}_{parts[1].upper()}"
    return None


def memory_ids(character_key: str, label: str, sequence: int) -> tuple[str, str]:
    """(memory_id, anonymized_id): the full id and the id without the trait label."""
    return (
        f"MEM_{character_key}_{label}_{sequence:04d}",
        f"MEM_{character_key}_{sequence:04d}",
    )


# --- dispatch --------------------------------------------------------------------------


def dispatch_locked(run: MemoryRun, *, on_unavailable=None) -> list[int]:
    """Send tasks for pending batches up to the run's concurrency, once the transaction
    commits. Caller holds the run's row lock (so two finishing batches never both fill
    the same free place)."""
    if run.status != RunStatus.RUNNING:
        return []
    batches = MemoryBatch.objects.filter(run_id=run.pk)
    in_flight = batches.filter(
        Q(status=BatchStatus.RUNNING) | Q(status=BatchStatus.PENDING, queued_at__isnull=False)
    ).count()
    free = run.concurrency - in_flight
    if free <= 0:
        return []
    ids = list(
        batches.filter(status=BatchStatus.PENDING, queued_at__isnull=True)
        .order_by("-slot_count", "index")
        .values_list("pk", flat=True)[:free]
    )
    if ids:
        MemoryBatch.objects.filter(pk__in=ids).update(queued_at=timezone.now())
        enqueue_on_commit(
            "annotation.execute_memory_batch",
            what=f"Memory run {run.pk}",
            on_unavailable=on_unavailable,
            calls=[(pk,) for pk in ids],
        )
    return ids


def stranded_batches():
    """(batch id, last written) of every batch a running run has sent (``queued_at``) that no worker
    has taken yet: the worker's sweep (``core.tasks.resend_stranded``) sends those with
    no message in the broker again. A batch that ended while the broker was down could
    not send the next ones; their rows say they were sent, and this finds them."""
    return MemoryBatch.objects.filter(
        status=BatchStatus.PENDING,
        queued_at__isnull=False,
        run__status=RunStatus.RUNNING,
    ).values_list("pk", "updated_at")


def run_dispatch(*, run_id: int) -> list[int]:
    with transaction.atomic():
        run = MemoryRun.objects.select_for_update().get(pk=run_id)
        return dispatch_locked(run)


# --- run completion ----------------------------------------------------------------------


run_finish_locked = FLOW.finish_locked


def run_after_batch(*, run_id: int, send_next: bool) -> None:
    """After a batch ended: send the next pending batches (``send_next``), or finish the
    run."""
    with transaction.atomic():
        run = MemoryRun.objects.select_for_update().get(pk=run_id)
        if send_next:
            dispatch_locked(run)
        run_finish_locked(run)


# --- batch state -------------------------------------------------------------------------


def batch_claim(*, batch_id: int) -> MemoryBatch | None:
    """The batch marked running; None when there is nothing to run (it is final, or
    its run is not running: a batch of a cancelled run is cancelled; or its run has
    just stopped at a spending limit: the batch waits for the run to be resumed)."""
    waiting = MemoryBatch.objects.select_related("run").get(pk=batch_id)
    if FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        batch = (
            MemoryBatch.objects.select_for_update(of=("self",))
            .select_related("run", "character", "plan__profile_version__character")
            .get(pk=batch_id)
        )
        if batch.is_terminal:
            return None
        if batch.run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            batch.status = BatchStatus.CANCELLED
            batch.queued_at = None
            batch.save(update_fields=["status", "queued_at", "updated_at"])
            return None
        if batch.run.status != RunStatus.RUNNING:
            return None
        if batch.status == BatchStatus.PENDING and batch.queued_at is None:
            # A message sent before a cancel, arriving after the resume: the batch's
            # new message is yet to be sent, and that one will run it.
            return None
        batch.attempts += 1
        batch.status = BatchStatus.RUNNING
        batch.error_kind = batch.error_message = ""
        batch.save(
            update_fields=["attempts", "status", "error_kind", "error_message", "updated_at"]
        )
        return batch


def _set_final(batch_id: int, status: str, *, kind: str = "", message: str = "") -> None:
    with transaction.atomic():
        batch = MemoryBatch.objects.select_for_update().get(pk=batch_id)
        if batch.is_terminal:
            return
        batch.status = status
        batch.error_kind = kind[:40]
        batch.error_message = message
        batch.queued_at = None
        batch.save(
            update_fields=["status", "error_kind", "error_message", "queued_at", "updated_at"]
        )


def _cancel_requested(run_id: int) -> bool:
    return FLOW.cancel_requested(run_id=run_id)


# --- execution ---------------------------------------------------------------------------

_prompts: dict[int, MemoryPromptVersion] = {}


def _run_prompt(prompt_id: int) -> MemoryPromptVersion:
    # Safe to keep per process: a version a run used never changes.
    prompt = _prompts.get(prompt_id)
    if prompt is None:
        prompt = _prompts[prompt_id] = MemoryPromptVersion.objects.get(pk=prompt_id)
    return prompt


def recent_contexts(character_id: int) -> list[str]:
    """The ``context`` of the character's most recent memories, oldest first (L.3)."""
    newest = (
        Memory.objects.filter(character_id=character_id)
        .order_by("-sequence")
        .values_list("context", flat=True)[: prompts.ANTI_DUPLICATION_WINDOW]
    )
    return list(reversed(newest))


def memory_batch_execute(*, batch_id: int, send_next: bool = False) -> MemoryBatch:
    """Fill a batch's empty slots. Safe to call any number of times: a final batch is
    returned unchanged, a batch of a cancelled run is cancelled, a filled slot is never
    asked for again. ``send_next`` queues the run's next pending batches when this one
    ends (the worker's task does)."""
    batch = batch_claim(batch_id=batch_id)
    if batch is None:
        run_id = MemoryBatch.objects.filter(pk=batch_id).values_list("run_id", flat=True).first()
        if run_id is not None:
            run_after_batch(run_id=run_id, send_next=send_next)
        return MemoryBatch.objects.get(pk=batch_id)
    try:
        _fill_slots(batch)
    except Stopped:
        logger.info("memory batch %s stopped: its run was cancelled or it was finished", batch_id)
    except SlotFailed as failure:
        _set_final(batch.pk, BatchStatus.FAILED, kind=failure.kind, message=failure.message)
    except Exception as exc:
        logger.exception("memory batch %s crashed", batch_id)
        _set_final(
            batch.pk, BatchStatus.FAILED, kind="internal_error", message=f"internal error: {exc}"
        )
        run_after_batch(run_id=batch.run_id, send_next=send_next)
        raise
    run_after_batch(run_id=batch.run_id, send_next=send_next)
    return MemoryBatch.objects.get(pk=batch_id)


def _fill_slots(batch: MemoryBatch) -> None:
    run = batch.run
    profile = batch.plan.profile_version
    prompt = _run_prompt(run.prompt_id)
    config = run_config(run.model_name)
    label = memory_label(profile)
    system = prompts.render(
        prompt.system_template,
        prompts.system_values(
            profile,
            life_stage=batch.life_stage,
            first_age=batch.first_age,
            last_age=batch.last_age,
            tier_shares=run.tier_shares or None,
        ),
    )
    filled = set(GeneratedMemory.objects.filter(batch=batch).values_list("slot", flat=True))
    first = True  # the claim has just read the run's status
    for index, slot in enumerate(batch.slots):
        if index in filled:
            continue
        if not first and _cancel_requested(run.pk):
            _set_final(batch.pk, BatchStatus.CANCELLED)
            raise Stopped
        first = False
        user = prompts.render(
            prompt.user_template,
            prompts.user_values(
                slot_ref=f"run {run.pk} batch {batch.index} slot {index}",
                slot=slot,
                life_stage=batch.life_stage,
                recent_contexts=recent_contexts(batch.character_id),
            ),
        )
        parsed, record = generate_memory(
            batch_id=batch.pk,
            slot=index,
            target_age=slot["age"],
            config=config,
            system=system,
            user=user,
        )
        _store(batch, index, slot, parsed, record=record, label=label, prompt=prompt)
    with transaction.atomic():
        locked = MemoryBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.is_terminal:
            raise Stopped
        if locked.memories.count() == len(locked.slots):
            locked.status = BatchStatus.SUCCEEDED
            locked.queued_at = None
            locked.save(update_fields=["status", "queued_at", "updated_at"])


def _store(batch, index, slot, parsed, *, record, label, prompt) -> None:
    """Store one slot's memory, unless another delivery already did."""
    run = batch.run
    model = record.model or run.model_name
    source = (
        f"generated: run {run.pk}, batch {batch.index}, slot {index}, "
        f"memory prompt v{prompt.number}, {model}"
    )[:SOURCE_MAX]
    signature = parsed["emotion_signature"]
    with transaction.atomic():
        locked = MemoryBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.is_terminal:
            raise Stopped
        if GeneratedMemory.objects.filter(batch_id=batch.pk, slot=index).exists():
            return  # filled by another delivery of this batch's task
        character = Character.objects.select_for_update().get(pk=batch.character_id)
        last = Memory.objects.filter(character=character).aggregate(n=Max("sequence"))["n"]
        sequence = (last or 0) + 1
        memory_id, anonymized_id = memory_ids(character.key, label, sequence)
        age = slot["age"]
        memory = Memory.objects.create(
            memory_id=memory_id,
            anonymized_id=anonymized_id,
            character=character,
            sequence=sequence,
            timeline=parsed["timeline"].strip(),
            event_age=age,
            life_stage=life_stage_for_age(age).key,
            context=parsed["context"].strip(),
            content_summary=parsed["content_summary"].strip(),
            content_full=parsed["content_full"],
            triggers=[str(t) for t in parsed["triggers"]],
            psych_conclusion=parsed["psych_conclusion"].strip(),
            behavior_policy=parsed["behavior_policy"].strip(),
            emotion_primary=signature["primary"].strip(),
            emotion_secondary=(signature.get("secondary") or "").strip(),
            emotion_intensity=float(signature["intensity"]),
            relevance_tags=[str(t) for t in parsed["relevance_tags"]],
            # Generated for a demo stand-in profile: a demo stand-in too.
            is_demo_standin=batch.plan.profile_version.is_demo_standin,
            source=source,
        )
        GeneratedMemory.objects.create(
            memory=memory,
            batch_id=batch.pk,
            slot=index,
            tier=slot["tier"],
            prompt=prompt,
            model_name=model,
            call=record,
        )
