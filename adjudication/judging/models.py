"""LLM judge runs on the blinded comparison (issue 22; the task of seed 000 App. D.2).

A ``JudgeRun`` asks one configured model to do the annotators' comparison on chosen
pairs, ``orders_per_pair`` times per pair; each (pair, order) is one ``JudgeCall``, the
run's unit of work (core.llm_runs), with the seeded permutation it presented (letter A,
B, C → candidate). Every model call a unit makes is a ``JudgeCallRecord``: the prompt
sent, the answer, its tokens and time. A unit that got a valid answer has one
``JudgeVerdict``, which has exactly the fields of an annotator's judgment, its letter
mapped back to the canonical candidate.
Gathered by :mod:`adjudication.models` under the ``adjudication`` label.

!!! BLINDING !!!  The judge's output (verdicts, calls, the run's model and family) is for
admins and the calibration report only: it must never reach an annotator- or
participant-facing page, fragment, API or export.
"""

from django.db import models

from annotation.comparison.models import ComparisonPair, JudgmentContent
from annotation.generation.models import ModelFamily
from core.llm_runs.models import AbstractCallRecord, LlmRun, LlmUnit
from core.protocol import PROTOCOL_SEED

__all__ = [
    "JudgeCall",
    "JudgeCallRecord",
    "JudgeRun",
    "JudgeVerdict",
    "MAX_ORDERS_PER_PAIR",
]

# Six orders are every permutation of three candidates: more would repeat one.
MAX_ORDERS_PER_PAIR = 6


class JudgeRun(LlmRun):
    """The framework's states (``RunStatus``): pending until started, running, then
    finished, finished with failures, or cancelled (through cancelling)."""

    name = models.CharField(max_length=200)
    # The judge model's own family: the calibration report's self-preference reads it.
    judge_family = models.CharField(max_length=16, choices=ModelFamily.choices)
    # Which configured provider answered (the generation family setup of that name,
    # settings.HEARTBENCH_GENERATION_FAMILIES) and the model it was asked for.
    provider_family = models.CharField(max_length=16, choices=ModelFamily.choices)
    provider_kind = models.CharField(max_length=40, blank=True)
    model = models.CharField(max_length=200)
    seed = models.BigIntegerField(default=PROTOCOL_SEED)
    orders_per_pair = models.PositiveSmallIntegerField(default=1)
    prompt_version = models.CharField(
        max_length=40, help_text="The judge prompt's version (adjudication.judging.prompts)."
    )
    pairs = models.ManyToManyField(ComparisonPair, related_name="+")

    class Meta(LlmRun.Meta):
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    orders_per_pair__gte=1, orders_per_pair__lte=MAX_ORDERS_PER_PAIR
                ),
                name="judge_run_orders_per_pair_range",
            )
        ]

    def __str__(self):
        return f"judge run {self.pk}: {self.name} ({self.status})"


class JudgeCall(LlmUnit):
    """One (pair, order) of a run: the permutation shown; its model calls are its
    ``records``, its tokens and cost their totals, its error the last failure's."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="calls")
    pair = models.ForeignKey(ComparisonPair, on_delete=models.PROTECT, related_name="+")
    order_index = models.PositiveSmallIntegerField()
    # [candidate pk for A, for B, for C]: letters are per call, like an annotator's.
    permutation = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "pair__character__key", "pair__scenario__scenario_id", "order_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "pair", "order_index"], name="judge_call_unique_order"
            )
        ]
        indexes = [models.Index(fields=["run", "status"], name="judge_call_run_status")]

    def __str__(self):
        return f"judge call {self.pk}: {self.pair} order {self.order_index} ({self.status})"


class JudgeCallRecord(AbstractCallRecord):
    """One model call of a judge call: ``request`` is the judge's prompt as sent (its
    version, provider, model, system and user text, the verdict schema)."""

    call = models.ForeignKey(JudgeCall, on_delete=models.CASCADE, related_name="records")

    class Meta:
        ordering = ["call", "created_at", "pk"]

    def __str__(self):
        return f"model call for judge call {self.call_id} ({self.outcome or 'failed'})"


class JudgeVerdict(JudgmentContent):
    """The judge's answer in an annotator's terms; ``selected_candidate`` is the letter
    mapped back through the call's permutation."""

    call = models.OneToOneField(JudgeCall, on_delete=models.CASCADE, related_name="verdict")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"verdict of {self.call}"
