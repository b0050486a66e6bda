"""Memory generation runs (seed 000 App. B.5, B.7, L.3).

A run generates the memories its plans call for. Its work is cut into batches: each
covers a 2–5-year age window inside one life-stage bin and targets 45–50 memories
(``batching``); each batch's memories are asked for one call at a time, one slot each,
with the slot's target age and ABCD intensity tier fixed when the batch is made. Every
call is recorded; every valid memory is stored at once as a ``corpus.Memory`` with a
``GeneratedMemory`` row naming where it came from.
"""

from django.db import models

from annotation.corpus.models import Character, Memory
from annotation.memory_generation.models.plans import MemoryPlan
from core.llm_runs.models import (
    AbstractCallRecord,
    AbstractPromptVersion,
    LlmRun,
    LlmUnit,
    PromptInUseError,
)

__all__ = [
    "MemoryPromptVersion",
    "MemoryPromptInUseError",
    "MemoryRun",
    "MemoryBatch",
    "MemoryCallRecord",
    "GeneratedMemory",
]


class MemoryPromptInUseError(PromptInUseError):
    """A memory prompt version a run used was about to change."""


class MemoryPromptVersion(AbstractPromptVersion):
    """One numbered version of the memory generation prompt (L.3); immutable once a run
    used it. Templates use ``str.format``-style placeholders."""

    in_use_error = MemoryPromptInUseError
    used_by = "a memory generation run"

    number = models.PositiveIntegerField(unique=True)

    class Meta:
        ordering = ["-number"]

    def __str__(self):
        return f"memory prompt v{self.number}"

    @property
    def is_used(self) -> bool:
        return self.pk is not None and MemoryRun.objects.filter(prompt_id=self.pk).exists()


class MemoryRun(LlmRun):
    plans = models.ManyToManyField(MemoryPlan, related_name="runs")
    prompt = models.ForeignKey(MemoryPromptVersion, on_delete=models.PROTECT, related_name="+")
    provider = models.CharField(max_length=40, blank=True, help_text="Provider kind.")
    model_name = models.CharField(max_length=200, blank=True)
    concurrency = models.PositiveSmallIntegerField(
        default=8, help_text="Batches in flight at once (the provider's concurrency limit)."
    )
    seed = models.PositiveIntegerField(default=0, help_text="Seeds the tier draw of each slot.")
    tier_shares = models.JSONField(
        default=dict, help_text='ABCD tier proportions, e.g. {"A": 0.25, "B": 0.35, ...}.'
    )

    def __str__(self):
        return f"memory run {self.pk} ({self.status})"


class MemoryBatch(LlmUnit):
    """One batch: an age window of one character's plan, one slot per memory asked for.

    ``slots`` is fixed when the batch is made:
    ``[{"age": 14, "tier": "B", "domain": "health"}, ...]``.
    A slot is filled at most once (``GeneratedMemory`` is unique per batch and slot), so
    a redelivered, resumed or retried batch asks only for its empty slots."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Generating"
        SUCCEEDED = "succeeded", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(MemoryRun, on_delete=models.CASCADE, related_name="batches")
    plan = models.ForeignKey(MemoryPlan, on_delete=models.PROTECT, related_name="batches")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    index = models.PositiveIntegerField(help_text="Order of the batch within its run.")
    life_stage = models.CharField(max_length=32)
    first_age = models.PositiveSmallIntegerField()
    last_age = models.PositiveSmallIntegerField()
    slots = models.JSONField()
    slot_count = models.PositiveIntegerField(
        default=0, help_text="len(slots); larger batches are dispatched first."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    queued_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its task was sent; a pending batch with a time set is in flight.",
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="memory_batch_unique"),
        ]
        indexes = [models.Index(fields=["run", "status"])]
        verbose_name_plural = "memory batches"

    def __str__(self):
        return (
            f"batch {self.index} of run {self.run_id}: {self.character} ages "
            f"{self.first_age}–{self.last_age} ({self.status})"
        )

    @property
    def target(self) -> int:
        return len(self.slots or [])


class MemoryCallRecord(AbstractCallRecord):
    """One ``llm`` call for one slot of a batch, as ``CallResult.as_dict`` gave it."""

    batch = models.ForeignKey(MemoryBatch, on_delete=models.CASCADE, related_name="calls")
    slot = models.PositiveIntegerField()
    problems = models.JSONField(default=list, blank=True, help_text="Why the output was refused.")

    class Meta:
        ordering = ["batch", "created_at", "pk"]

    def __str__(self):
        outcome = "ok" if self.ok else self.error_kind
        return f"call for slot {self.slot} of batch {self.batch_id} ({outcome})"


class GeneratedMemory(models.Model):
    """Where a generated memory came from: plan, run, batch, slot, prompt, model, call."""

    memory = models.OneToOneField(Memory, on_delete=models.PROTECT, related_name="generation")
    batch = models.ForeignKey(MemoryBatch, on_delete=models.PROTECT, related_name="memories")
    slot = models.PositiveIntegerField()
    tier = models.CharField(max_length=1)
    prompt = models.ForeignKey(MemoryPromptVersion, on_delete=models.PROTECT, related_name="+")
    model_name = models.CharField(max_length=200)
    call = models.OneToOneField(
        MemoryCallRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "slot"], name="generated_memory_slot_unique")
        ]

    def __str__(self):
        return f"{self.memory_id} from batch {self.batch_id} slot {self.slot}"
