"""Scenario review (seed 000 §2.3, App. C.2) and the scenario blueprints.

A ``ScenarioBlueprint`` is expanded by an LLM into a first ``ScenarioVersion``; the two
scenario reviewers screen it jointly (pass 1, ``ScreeningDecision``; a flagged version
is revised and both approve the revision), then rate it independently on the eight
DIAMONDS dimensions (pass 2, ``DiamondsRating``); dimensions more than one point apart
are jointly re-assessed: one reviewer proposes their final values
(``ReassessmentProposal``), the other confirms them or counter-proposes, and only a
confirmation records ``FinalDiamondsRating``.
Every transition is logged in profile review's ``ReviewEvent``.

!!! BLINDING !!!  A scenario reviewer never receives the other reviewer's pass-2 rating
before submitting their own. The selectors in ``selectors`` are the only readers and
enforce it.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotation.corpus.models import Scenario, ScenarioContent
from annotation.profile_review.models import immutable_save
from core.diamonds import (  # noqa: F401 (the scenario review's names for them)
    DIAMONDS_ANCHORS,
    DIAMONDS_DEFINITIONS,
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_DIMENSIONS,
    DIAMONDS_FIELDS,
    DIAMONDS_LABELS,
    DIAMONDS_MAX,
    DIAMONDS_MID,
    DIAMONDS_MIN,
    DIAMONDS_SCALE,
)
from core.life_stages import LIFE_STAGE_CHOICES

__all__ = [
    "DIAMONDS_DIMENSIONS",
    "DiamondsRating",
    "FinalDiamondsRating",
    "ReassessmentProposal",
    "ScenarioBlueprint",
    "ScenarioReview",
    "ScenarioVersion",
    "ScreeningDecision",
]


one_to_seven = [MinValueValidator(DIAMONDS_MIN), MaxValueValidator(DIAMONDS_MAX)]

# App. L.4 field 6.
SCENARIO_INTENSITIES = ("Low", "Medium", "High", "Very High", "Extreme")


BLUEPRINT_TITLE_MAX = 300


class ScenarioBlueprint(models.Model):
    """An expert-drafted summary (seed 000 §2.3 Stage 1) for LLM expansion (Stage 2)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the expansion"
        EXPANDED = "expanded", "Expanded into a draft scenario"
        FAILED = "failed", "Expansion failed"

    title = models.CharField(max_length=BLUEPRINT_TITLE_MAX)
    summary = models.TextField(help_text="Establishes a core tension; character-agnostic.")
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    diamonds_dimension = models.CharField(max_length=20, choices=DIAMONDS_DIMENSION_CHOICES)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    call_record = models.JSONField(default=dict, blank=True)
    scenario = models.OneToOneField(
        Scenario, null=True, blank=True, on_delete=models.PROTECT, related_name="blueprint"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"blueprint {self.pk}: {self.title}"


class ScenarioVersion(ScenarioContent):
    """One immutable version of a scenario's content (the fields of ``ScenarioContent``);
    ``Scenario`` holds the current one."""

    class Origin(models.TextChoices):
        IMPORT = "import", "Imported"
        BLUEPRINT = "blueprint", "LLM expansion of a blueprint"
        MANUAL = "manual", "Entered by hand"
        REVISION = "revision", "Consensus revision (pass 1)"

    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    origin = models.CharField(max_length=16, choices=Origin.choices)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scenario", "number"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "number"], name="scenario_version_unique")
        ]

    def __str__(self):
        return f"{self.scenario.scenario_id} v{self.number}"

    save = immutable_save


class ScenarioReview(models.Model):
    """The two-pass review of one scenario (App. C.2)."""

    class Stage(models.TextChoices):
        SCREENING = "screening", "Pass 1: joint screening"
        REVISION = "revision", "Pass 1: flagged, awaiting a consensus revision"
        RATING = "rating", "Pass 2: independent DIAMONDS rating"
        REASSESSMENT = "reassessment", "Pass 2: joint re-assessment"
        COMPLETE = "complete", "Reviewed"

    scenario = models.OneToOneField(Scenario, on_delete=models.PROTECT, related_name="review")
    stage = models.CharField(max_length=16, choices=Stage.choices, default=Stage.SCREENING)
    version = models.ForeignKey(
        ScenarioVersion,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The version under screening, or (from pass 2 on) the approved one.",
    )
    screened_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scenario__scenario_id"]

    def __str__(self):
        return f"review of {self.scenario.scenario_id}"


class ScreeningDecision(models.Model):
    """One reviewer's pass-1 decision on one version; both must approve the same one."""

    class Decision(models.TextChoices):
        APPROVE = "approve", "Approve"
        FLAG = "flag", "Flag for revision"

    review = models.ForeignKey(ScenarioReview, on_delete=models.PROTECT, related_name="screenings")
    version = models.ForeignKey(ScenarioVersion, on_delete=models.PROTECT, related_name="+")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(max_length=8, choices=Decision.choices)
    logically_consistent = models.BooleanField(default=False)
    psychologically_plausible = models.BooleanField(default=False)
    character_agnostic = models.BooleanField(default=False)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "reviewer"], name="screening_once_per_version"
            )
        ]

    def __str__(self):
        return f"{self.get_decision_display()} {self.version} by {self.reviewer}"

    save = immutable_save


class DiamondsScores(models.Model):
    duty = models.PositiveSmallIntegerField(validators=one_to_seven)
    intellect = models.PositiveSmallIntegerField(validators=one_to_seven)
    adversity = models.PositiveSmallIntegerField(validators=one_to_seven)
    mating = models.PositiveSmallIntegerField(validators=one_to_seven)
    positivity = models.PositiveSmallIntegerField(validators=one_to_seven)
    negativity = models.PositiveSmallIntegerField(validators=one_to_seven)
    deception = models.PositiveSmallIntegerField(validators=one_to_seven)
    sociality = models.PositiveSmallIntegerField(validators=one_to_seven)

    class Meta:
        abstract = True

    def scores(self) -> dict[str, int]:
        return {f: getattr(self, f) for f in DIAMONDS_FIELDS}


def _scale_constraints(prefix: str) -> list:
    return [
        models.CheckConstraint(
            condition=models.Q(**{f"{f}__gte": DIAMONDS_MIN, f"{f}__lte": DIAMONDS_MAX}),
            name=f"{prefix}_{f}_on_scale",
        )
        for f in DIAMONDS_FIELDS
    ]


class DiamondsRating(DiamondsScores):
    """One reviewer's independent pass-2 rating of the approved version (1-7 each)."""

    review = models.ForeignKey(ScenarioReview, on_delete=models.PROTECT, related_name="ratings")
    version = models.ForeignKey(ScenarioVersion, on_delete=models.PROTECT, related_name="+")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    note = models.TextField(blank=True)
    submitted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "submitted_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["review", "reviewer"], name="diamonds_rating_once"),
            *_scale_constraints("diamonds_rating"),
        ]

    def __str__(self):
        return f"DIAMONDS rating of {self.review.scenario.scenario_id} by {self.reviewer}"

    save = immutable_save


class ReassessmentProposal(models.Model):
    """One reviewer's proposal of the final values of the dimensions the two ratings put
    more than one point apart (App. C.2 joint re-assessment). The latest proposal of a
    review is the current one; the other reviewer confirms it, or counter-proposes and
    waits for the first one's confirmation. Immutable: a change is a new proposal."""

    review = models.ForeignKey(
        ScenarioReview, on_delete=models.PROTECT, related_name="reassessment_proposals"
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    values = models.JSONField(help_text="{dimension: 1-7} for each re-assessed dimension.")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "created_at", "pk"]

    def __str__(self):
        return f"re-assessment proposal {self.pk} for {self.review.scenario.scenario_id}"

    save = immutable_save


class FinalDiamondsRating(DiamondsScores):
    """The scenario's final rating: agreed values where the two differed by more than one
    point (``reassessed``), the resolution rule elsewhere (``services.final_rating_rule``).
    After a re-assessment, ``proposal`` holds the values one reviewer proposed and
    ``recorded_by`` is the other reviewer, who confirmed them."""

    review = models.OneToOneField(ScenarioReview, on_delete=models.PROTECT, related_name="final")
    reassessed = models.JSONField(default=list, help_text="Dimensions jointly re-assessed.")
    proposal = models.OneToOneField(
        ReassessmentProposal,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="final",
        help_text="The confirmed proposal of a joint re-assessment.",
    )
    note = models.TextField(blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The second rater; after a re-assessment, the reviewer who confirmed it.",
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = _scale_constraints("final_diamonds")

    def __str__(self):
        return f"final DIAMONDS rating of {self.review.scenario.scenario_id}"

    save = immutable_save
