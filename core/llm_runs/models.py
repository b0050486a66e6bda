"""Abstract models of an LLM-backed run, its units and its calls (issue #33).

Every workflow that asks a model for something (candidate generation, memory
generation, character drafting, judge runs, ...) derives its run, unit and call-record
models from these; the tables stay per workflow (each concrete model keeps its own
``db_table``, names and related names). A concrete model that stored a field slightly
differently before (a help text, a missing column) overrides or removes it, so the
stored schema does not change.
"""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

__all__ = [
    "MILLION",
    "AbstractCall",
    "AbstractCallRecord",
    "AbstractPromptVersion",
    "MonthlySpendingCap",
    "PromptInUseError",
    "LlmRun",
    "LlmUnit",
    "RunStatus",
    "UnitCost",
    "run_status_choices",
]

# Prices are in USD per million tokens.
MILLION = Decimal(1_000_000)


class RunStatus(models.TextChoices):
    """The states of every run: pending → running → (cancelling → cancelled) |
    finished | finished with failures; a retry or a resume takes it back to running.
    A running run whose recorded cost reached its budget, or whose provider reached the
    lab's monthly cap, is stopped at budget until it is resumed (``core.llm_runs.spending``)."""

    PENDING = "pending", "Not started"
    RUNNING = "running", "Running"
    CANCELLING = "cancelling", "Cancelling"
    CANCELLED = "cancelled", "Cancelled"
    FINISHED = "finished", "Finished"
    FINISHED_WITH_FAILURES = "finished_with_failures", "Finished with failures"
    STOPPED_AT_BUDGET = "stopped_at_budget", "Stopped at budget"


#: A run a worker may still be working on.
ACTIVE = (RunStatus.RUNNING, RunStatus.CANCELLING)
#: A run whose page keeps asking for news: it waits for a worker or one works on it.
IN_PROGRESS = (RunStatus.PENDING, *ACTIVE)
#: A run whose every unit has its final state.
OVER = (RunStatus.CANCELLED, RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES)


def run_status_choices(*states: RunStatus) -> list[tuple[str, str]]:
    """The choices of a run whose workflow uses only some of the states (all when none
    is named), in ``RunStatus`` order."""
    return [(s.value, s.label) for s in RunStatus if not states or s in states]


class LlmRun(models.Model):
    """A run: who asked for it, when, its note and its state."""

    Status = RunStatus

    status = models.CharField(max_length=32, choices=RunStatus.choices, default=RunStatus.PENDING)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Issue #36: no new unit is taken up once the run's recorded cost reaches this.
    budget_usd = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="Budget in USD; the run stops taking up units once its cost reaches it.",
    )
    stop_reason = models.TextField(
        blank=True, help_text="Why the run stopped at a budget or a monthly cap."
    )

    class Meta:
        abstract = True
        ordering = ["-created_at", "-pk"]

    @property
    def is_stopped_at_budget(self) -> bool:
        return self.status == RunStatus.STOPPED_AT_BUDGET

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE

    @property
    def in_progress(self) -> bool:
        """Whether the run's page polls: a pending run has not been taken up yet, and a
        page that stopped polling then would show "Pending" until reloaded."""
        return self.status in IN_PROGRESS

    @property
    def is_over(self) -> bool:
        return self.status in OVER


class UnitCost(models.Model):
    """The tokens and the estimated cost of every call a unit made."""

    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))

    class Meta:
        abstract = True


class LlmUnit(UnitCost):
    """One piece of a run's work a worker takes up: its own ``status`` (the workflow's
    states, ``TERMINAL`` naming the final ones), how often it was taken up, its error."""

    TERMINAL: tuple = ()

    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker took it up.")
    error_kind = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL


class AbstractCall(models.Model):
    """One model call (all its structured-output rounds and HTTP tries) as
    ``llm.CallResult`` gave it: who answered, what came back, what it cost, what went
    wrong. The fields every stage's call record stores."""

    provider = models.CharField(max_length=40)
    model = models.CharField(max_length=200)
    raw_response = models.TextField(blank=True)
    parsed = models.JSONField(null=True, blank=True)
    ok = models.BooleanField()
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_s = models.FloatField(default=0.0)
    # The call's cost at the prices configured when it was made (issue #36: the month's
    # spend per provider is the sum of these).
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    error_kind = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    @property
    def outcome(self) -> str:
        return "ok" if self.ok else self.error_kind


class AbstractCallRecord(AbstractCall):
    """A call with the request as sent and its prompt's hash (``llm.prompt_hash``, which
    finds earlier calls for an identical prompt)."""

    prompt_hash = models.CharField(max_length=64)
    request = models.JSONField(default=dict)
    attempt_count = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


class PromptInUseError(ValidationError):
    """A prompt version a run used was about to change."""


class AbstractPromptVersion(models.Model):
    """One numbered version of a stage's prompt templates (``str.format`` placeholders).

    Immutable once a run used it, so a run keeps naming exactly the text it ran with:
    editing a prompt means saving the next number. A workflow names what uses a version
    (``is_used``, ``used_by``) and its refusal (``in_use_error``)."""

    in_use_error: type[ValidationError] = PromptInUseError
    #: How the refusal names what used the version: "a generation run".
    used_by = "a run"

    number = models.PositiveIntegerField()
    system_template = models.TextField()
    user_template = models.TextField()
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        # An integrity rule of the record, like ProfileVersion's freeze.
        if self.is_used:
            raise self.in_use_error(self.in_use_message())
        super().save(*args, **kwargs)

    @property
    def is_used(self) -> bool:
        raise NotImplementedError

    def in_use_message(self) -> str:
        return (
            f"{self} was used by {self.used_by} and cannot change; create the next version instead."
        )


class MonthlySpendingCap(models.Model):
    """The lab's most a provider may cost in one calendar month (UTC), over every run of
    every stage (issue #36). A run whose provider has reached it stops at budget."""

    provider = models.CharField(
        max_length=40,
        unique=True,
        help_text="The provider as call records name it: anthropic, openai, gemini, "
        "openai_compatible, offline_demo.",
    )
    cap_usd = models.DecimalField(
        max_digits=12, decimal_places=2, help_text="USD per calendar month (UTC)."
    )
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["provider"]
        verbose_name = "monthly spending cap"

    def __str__(self):
        return f"{self.provider}: ${self.cap_usd} a month"
