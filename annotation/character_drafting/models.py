"""Character drafting (seed 000 §2.2 Stage 1, App. B.1/B.2, L.2).

A ``DraftingJob`` asks one model to draft a set of characters (the Table 4 design, a
custom one, or one redraft of a reviewed profile); it holds one ``CharacterDraft`` per
character, and every model call of a draft is a ``DraftingCall`` with its prompt, model,
raw and parsed output, tokens and error. A valid draft becomes a ``ProfileVersion`` (the
first of a new character, or the next one of a redrafted character) that profile review
takes up. ``DraftingPrompt`` versions are numbered and never change once a job used one.
"""

from django.db import models

from annotation.corpus.models import Character, ProfileVersion
from core.llm_runs.models import (
    AbstractCall,
    AbstractPromptVersion,
    LlmRun,
    PromptInUseError,
    RunStatus,
    UnitCost,
    run_status_choices,
)

__all__ = [
    "CharacterDraft",
    "DraftingCall",
    "DraftingJob",
    "DraftingPrompt",
    "DraftingPromptInUseError",
]


class DraftingPromptInUseError(PromptInUseError):
    """A drafting prompt version a job used was about to change."""


class DraftingPrompt(AbstractPromptVersion):
    """One numbered version of the drafting prompt (templates: ``prompts``)."""

    in_use_error = DraftingPromptInUseError

    number = models.PositiveIntegerField(unique=True)
    redraft_template = models.TextField()

    class Meta:
        ordering = ["number"]

    def __str__(self):
        return f"drafting prompt v{self.number}"

    def in_use_message(self) -> str:
        # A job must keep naming exactly the text its drafts were written with.
        return f"{self} was used by a drafting job and cannot change; create the next version."

    @property
    def is_used(self) -> bool:
        return self.pk is not None and DraftingJob.objects.filter(prompt_id=self.pk).exists()


class DraftingJob(LlmRun):
    class Kind(models.TextChoices):
        DRAFT = "draft", "New characters"
        REDRAFT = "redraft", "Redraft of a reviewed profile"

    class Design(models.TextChoices):
        TABLE4 = "table4", "The paper's design: ten high/low anchors and the neutral reference"
        CUSTOM = "custom", "Custom requirements"
        REDRAFT = "redraft", "The reviewed profile's own design"

    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.DRAFT)
    design = models.CharField(max_length=16, choices=Design.choices)
    design_text = models.TextField(blank=True, help_text="The custom design as typed.")
    skipped_keys = models.JSONField(
        default=list, blank=True, help_text="Keys of the design left out: the character exists."
    )
    provider = models.CharField(max_length=40)
    model = models.CharField(max_length=200)
    prompt = models.ForeignKey(DraftingPrompt, on_delete=models.PROTECT, related_name="jobs")
    max_attempts = models.PositiveIntegerField(
        help_text="Model calls per draft before it is reported as failed."
    )
    # A job starts running when it is made: it is never pending. It stops at budget when
    # its recorded cost reaches its budget or its provider the lab's monthly cap (issue
    # #36), and is then resumed or cancelled. The API schema names these choices
    # (settings: SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES).
    STATUS_CHOICES = run_status_choices(
        RunStatus.RUNNING,
        RunStatus.CANCELLING,
        RunStatus.CANCELLED,
        RunStatus.FINISHED,
        RunStatus.FINISHED_WITH_FAILURES,
        RunStatus.STOPPED_AT_BUDGET,
    )
    status = models.CharField(max_length=32, choices=STATUS_CHOICES, default=RunStatus.RUNNING)
    started_at = None
    is_demo = models.BooleanField(default=False)

    def __str__(self):
        return f"drafting job {self.pk} ({self.status})"


class CharacterDraft(UnitCost):
    """One character of a job: drafted, checked, retried, then a profile version or a
    reported failure (or cancelled while waiting, with its job). Its tokens and cost are
    the sums of its calls' (``UnitCost``)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        RUNNING = "running", "Drafting"
        SUCCEEDED = "succeeded", "Drafted"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    job = models.ForeignKey(DraftingJob, on_delete=models.CASCADE, related_name="drafts")
    char_key = models.CharField(max_length=16)
    planned = models.JSONField(help_text="design.PlannedCharacter.as_dict()")
    redraft_of = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    redraft_field = models.CharField(
        max_length=32, blank=True, help_text="The one field redrafted; blank: the whole profile."
    )
    guidance = models.JSONField(
        default=list, blank=True, help_text="The change requests the redraft addresses."
    )
    admin_note = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    deliveries = models.PositiveIntegerField(default=0, help_text="Times a worker took it up.")
    problems = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    error_kind = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    profile_version = models.OneToOneField(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="draft"
    )
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["job", "char_key", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["job", "char_key"], name="character_draft_unique")
        ]
        indexes = [models.Index(fields=["job", "status"])]

    def __str__(self):
        return f"draft of {self.char_key} in job {self.job_id} ({self.status})"

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL


class DraftingCall(AbstractCall):
    """One model call of a draft (all its structured-output rounds): the prompt as sent,
    the model, the raw and parsed output, tokens, and what was wrong with it."""

    draft = models.ForeignKey(CharacterDraft, on_delete=models.CASCADE, related_name="calls")
    attempt = models.PositiveIntegerField()
    system = models.TextField()
    user = models.TextField()
    ok = models.BooleanField(help_text="The output was usable (schema and checks).")
    problems = models.JSONField(default=list, blank=True)
    rounds = models.PositiveIntegerField(default=0)
    details = models.JSONField(default=dict, blank=True, help_text="Per-try records.")

    class Meta:
        ordering = ["draft", "attempt", "pk"]

    def __str__(self):
        return f"call {self.attempt} of {self.draft}"
