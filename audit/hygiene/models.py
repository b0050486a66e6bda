"""Release hygiene (MRBench App. D.4, D.5; issue #37): screens of the texts the export
publishes for personal data and offensive words, the spans they flagged, and the memory
reviewers' decisions on them.

A screen is a run of the shared run machinery (``core.llm_runs``): one unit per
character, each unit screening that character's audited memories, its adjudicated
references and its final items' options in one transaction, so a unit yields its flags
once. The pattern screen calls no model; its units record no cost.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqOption
from annotation.corpus.models import Character, Memory
from audit.hygiene.rules import RULE_LABELS
from core.llm_runs.models import LlmRun, LlmUnit

RULE_CHOICES = [(rule.value, label) for rule, label in RULE_LABELS.items()]


class HygieneError(ValidationError):
    """A hygiene step that cannot be taken; the message says what to do instead."""


class HygieneRun(LlmRun):
    """One screen of the published texts. ``lexicon_name``/``lexicon_sha256`` name the
    lexicon file it used, so a report says which list it checked against."""

    lexicon_name = models.CharField(max_length=200, blank=True)
    lexicon_sha256 = models.CharField(max_length=64, blank=True)
    lexicon_size = models.PositiveIntegerField(default=0)
    text_total = models.PositiveIntegerField(default=0)
    text_done = models.PositiveIntegerField(default=0)

    class Meta(LlmRun.Meta):
        verbose_name = "release hygiene screen"

    def __str__(self):
        return f"Release hygiene screen {self.pk}"

    @property
    def percent(self) -> int:
        if not self.text_total:
            return 100 if self.is_over else 0
        return int(100 * self.text_done / self.text_total)


class HygieneUnit(LlmUnit):
    """The screen of one character's published texts within a run."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Screening"
        DONE = "done", "Screened"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.DONE, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(HygieneRun, on_delete=models.CASCADE, related_name="units")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    texts = models.PositiveIntegerField(default=0, help_text="Texts this unit screened.")

    class Meta:
        ordering = ["run", "character__key"]
        constraints = [
            models.UniqueConstraint(fields=["run", "character"], name="hygiene_unit_unique")
        ]

    def __str__(self):
        return f"{self.run} · {self.character_id} ({self.status})"


class HygieneFlag(models.Model):
    """One span one rule matched in one field of one published text."""

    class TextKind(models.TextChoices):
        MEMORY = "memory", "Memory"
        REFERENCE = "reference", "Reference response"
        OPTION = "option", "Answer option"

    class Status(models.TextChoices):
        OPEN = "open", "Awaiting a memory reviewer"
        DISMISSED = "dismissed", "Dismissed as fine"
        CONFIRMED = "confirmed", "Confirmed: to be rewritten"

    UNRESOLVED = (Status.OPEN, Status.CONFIRMED)

    run = models.ForeignKey(HygieneRun, on_delete=models.CASCADE, related_name="flags")
    unit = models.ForeignKey(HygieneUnit, on_delete=models.CASCADE, related_name="flags")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    text_kind = models.CharField(max_length=16, choices=TextKind.choices)
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reference = models.ForeignKey(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    option = models.ForeignKey(
        McqOption, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Where the text sits, in words a reviewer reads ("age 12", "adolescence scenario").
    text_label = models.CharField(max_length=200, blank=True)
    field = models.CharField(max_length=40)
    rule = models.CharField(max_length=16, choices=RULE_CHOICES, db_index=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    matched = models.CharField(max_length=300)
    detail = models.CharField(max_length=300, blank=True)
    before = models.CharField(max_length=200, blank=True)
    after = models.CharField(max_length=200, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    # A reviewer's earlier dismissal of the same span in the same text carries over.
    carried_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character__key", "text_kind", "pk"]
        indexes = [models.Index(fields=["run", "status"])]

    def __str__(self):
        return f"{self.get_rule_display()} in {self.get_text_kind_display()} ({self.status})"

    @property
    def text_key(self) -> tuple:
        return (self.text_kind, self.memory_id, self.reference_id, self.option_id, self.field)


class HygieneDecision(models.Model):
    """A memory reviewer's decision on one flag (append-only: a flag decided again gets
    another row; the flag's status is the latest)."""

    class Decision(models.TextChoices):
        DISMISS = "dismiss", "Dismiss: the text is fine"
        CONFIRM = "confirm", "Confirm: the text must be rewritten"

    flag = models.ForeignKey(HygieneFlag, on_delete=models.CASCADE, related_name="decisions")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    reason = models.TextField(blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["flag", "created_at", "pk"]

    def __str__(self):
        return f"{self.decision} on {self.flag_id}"
