"""Candidate generation (seed 000 §2.4 Stage 1, App. D.1, App. L.5).

A ``GenerationRun`` fans out into one ``GenerationUnit`` per (character, scenario,
family); a unit walks screening → re-ranking → response, each step persisted before the
next so a redelivered or killed task resumes where it stopped, and ends in at most one
``Candidate``. Every model call is kept as an ``LlmCallRecord``.

!!! BLINDING !!!  The model family of a unit or candidate (``family``, and
``model_name``, ``run``/``unit`` provenance and ``LlmCallRecord.provider``/``model``)
is provenance for admins only. It must NEVER reach annotator-facing code: no
annotator page, htmx fragment, API response, data attribute or export may serialize
it (the blinded three-candidate comparison of seed 000 §2.4 Stage 2 depends on it).
"""

from django.db import models

from annotation.corpus.models import Character, ProfileVersion, Scenario
from core.llm_runs.models import (
    AbstractCallRecord,
    AbstractPromptVersion,
    LlmRun,
    LlmUnit,
    PromptInUseError,
)

__all__ = [
    "Candidate",
    "GenerationRun",
    "GenerationUnit",
    "LlmCallRecord",
    "ModelFamily",
    "PromptVersion",
    "PromptVersionInUseError",
]


class PromptVersionInUseError(PromptInUseError):
    """A prompt version a generation run used was about to change."""


class ModelFamily(models.TextChoices):
    """The three model families of seed 000 §2.4 Stage 1 (App. L.5).

    Provenance only: never shown to annotators (see the module docstring).
    """

    CLAUDE = "claude", "Claude"
    GPT = "gpt", "GPT"
    GEMINI = "gemini", "Gemini"


class GenerationStage(models.TextChoices):
    SCREENING = "screening", "Memory screening"
    RERANKING = "reranking", "Memory re-ranking"
    RESPONSE = "response", "Response generation"


class PromptVersion(AbstractPromptVersion):
    """One numbered version of a stage's prompt; a run names the versions it used.

    Immutable once a run references it: editing a prompt means creating the next number.
    Templates use ``str.format``-style placeholders (see ``prompts.render``).
    """

    Stage = GenerationStage
    in_use_error = PromptVersionInUseError
    used_by = "a generation run"

    stage = models.CharField(max_length=16, choices=GenerationStage.choices)

    class Meta:
        ordering = ["stage", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="prompt_version_unique")
        ]

    def __str__(self):
        return f"{self.stage} prompt v{self.number}"

    @property
    def is_used(self) -> bool:
        if self.pk is None:
            return False
        return GenerationRun.objects.filter(
            models.Q(screening_prompt=self)
            | models.Q(reranking_prompt=self)
            | models.Q(response_prompt=self)
        ).exists()


class GenerationRun(LlmRun):
    families = models.JSONField(help_text='Model family values, e.g. ["claude", "gpt"].')
    pair_filter = models.JSONField(
        default=dict,
        blank=True,
        help_text='{"characters": [keys], "scenarios": [ids]}, or {} for every pair.',
    )
    screening_prompt = models.ForeignKey(PromptVersion, on_delete=models.PROTECT, related_name="+")
    reranking_prompt = models.ForeignKey(PromptVersion, on_delete=models.PROTECT, related_name="+")
    response_prompt = models.ForeignKey(PromptVersion, on_delete=models.PROTECT, related_name="+")
    # Issue #22: an arbitrator's regeneration guidance, added to the response prompt of
    # every unit as a separate block (``prompts.guidance_block``); blank for other runs.
    guidance = models.TextField(blank=True)
    activation_models = models.JSONField(
        default=dict, blank=True, help_text="{family: model name} for screening and re-ranking."
    )
    # Declared last: the field's name shadows the ``models`` module in the class body.
    models = models.JSONField(default=dict, blank=True, help_text="{family: model name}")

    def __str__(self):
        return f"generation run {self.pk} ({self.status})"


class GenerationUnit(LlmUnit):
    """One (character, scenario, family) pipeline of a run."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        SCREENING = "screening", "Screening memories"
        RERANKING = "reranking", "Re-ranking memories"
        RESPONDING = "responding", "Writing the response"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="units")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="+")
    family = models.CharField(max_length=16, choices=ModelFamily.choices)  # provenance only
    profile_version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    stage_reached = models.CharField(
        max_length=16,
        choices=GenerationStage.choices,
        blank=True,
        help_text="The last stage whose result is stored.",
    )
    eligible_memory_ids = models.JSONField(null=True, blank=True)
    screened_memory_ids = models.JSONField(null=True, blank=True)
    activated_memory_ids = models.JSONField(null=True, blank=True)
    reranking_skipped = models.BooleanField(default=False)

    class Meta:
        ordering = ["run", "character__key", "scenario__scenario_id", "family"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "character", "scenario", "family"],
                name="generation_unit_unique",
            )
        ]
        indexes = [models.Index(fields=["run", "status"])]

    def __str__(self):
        return f"unit {self.pk}: {self.character} × {self.scenario} ({self.status})"


class LlmCallRecord(AbstractCallRecord):
    """One ``llm`` call (all its rounds and HTTP tries) as ``CallResult.as_dict`` gave it."""

    unit = models.ForeignKey(GenerationUnit, on_delete=models.CASCADE, related_name="calls")
    stage = models.CharField(max_length=16, choices=GenerationStage.choices)
    details = models.JSONField(
        default=dict, blank=True, help_text="Rounds, finish reason and per-try records."
    )

    class Meta:
        ordering = ["unit", "created_at", "pk"]

    def __str__(self):
        return f"{self.stage} call for unit {self.unit_id} ({'ok' if self.ok else self.error_kind})"


class Candidate(models.Model):
    """One model family's candidate response for a (character, scenario) pair.

    !!! BLINDING !!!  ``family``, ``model_name``, ``run``, ``unit`` and ``origin`` are
    provenance. They must NEVER be serialized into anything an annotator can reach; the
    blinded comparison shows candidates by per-annotator letter only.
    """

    class Origin(models.TextChoices):
        GENERATED = "generated", "Generated by a run"
        IMPORTED = "imported", "Imported from the release"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="+")
    family = models.CharField(max_length=16, choices=ModelFamily.choices)  # provenance only
    model_name = models.CharField(max_length=200)  # provenance only
    run = models.ForeignKey(
        GenerationRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="candidates",
    )
    unit = models.OneToOneField(
        GenerationUnit,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="candidate",
    )
    profile_version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    summary = models.TextField(blank=True)
    emotional_tone = models.TextField(blank=True)
    core_reasoning = models.TextField(blank=True)
    final_decision = models.TextField()
    activated_memory_ids = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.GENERATED)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character__key", "scenario__scenario_id", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "character", "scenario", "family"],
                name="candidate_unique_per_run",
            ),
            models.UniqueConstraint(
                fields=["character", "scenario", "family"],
                condition=models.Q(run__isnull=True),
                name="candidate_unique_imported",
            ),
        ]

    def __str__(self):
        return f"candidate {self.pk}: {self.character} × {self.scenario}"
