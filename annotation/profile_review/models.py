"""Construction-stage expert reviews (issue 6): character profiles and scenarios.

Profile review (seed 000 §2.2 Stage 1, App. B.3): the three primary annotators each
review a draft ``ProfileVersion`` (``ProfileReview``) with field-level
``ChangeRequest``\\s; the arbitrator adjudicates the ``ProfileReviewCase``: field-level
edits create the next version (``ProfileEdit`` keeps the diff), every change request is
resolved, and the final version is frozen.

Scenario review (seed 000 §2.3, App. C.2): a ``ScenarioBlueprint`` is expanded by an LLM
into a first ``ScenarioVersion``; the two scenario reviewers screen it jointly (pass 1,
``ScreeningDecision``; a flagged version is revised and both approve the revision),
then rate it independently on the eight DIAMONDS dimensions (pass 2,
``DiamondsRating``); dimensions more than one point apart are jointly re-assessed and
the agreed values recorded in ``FinalDiamondsRating``.

!!! BLINDING !!!  A primary annotator never receives another annotator's review or
change request before the case is frozen; a scenario reviewer never receives the other
reviewer's pass-2 rating before submitting their own. The selectors in
``review_selectors`` are the only readers and enforce both rules.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotation.corpus.life_stages import LIFE_STAGE_CHOICES
from annotation.corpus.models import CORE_PATTERN_COUNT, Character, ProfileVersion, Scenario

__all__ = [
    "DIAMONDS_DIMENSIONS",
    "ChangeRequest",
    "DiamondsRating",
    "FinalDiamondsRating",
    "ProfileEdit",
    "ProfileReview",
    "ProfileReviewCase",
    "ReviewEvent",
    "ScenarioBlueprint",
    "ScenarioReview",
    "ScenarioVersion",
    "ScreeningDecision",
]

# Seed 000 §2.2 Stage 1 / App. B.3: three researchers review every specification.
PROFILE_REVIEWERS_REQUIRED = 3
# Seed 000 App. C.2: two reviewers; disagreements above 1 point trigger re-assessment.
SCENARIO_REVIEWERS_REQUIRED = 2
REASSESSMENT_THRESHOLD = 1
# App. C.2 / Table 12: 1 (not present), 4 (moderately present), 7 (strongly present).
DIAMONDS_MIN, DIAMONDS_MID, DIAMONDS_MAX = 1, 4, 7
DIAMONDS_SCALE = tuple(range(DIAMONDS_MIN, DIAMONDS_MAX + 1))

# (field name, label, letter) in the taxonomy's order (Rauthmann et al. 2014).
DIAMONDS_DIMENSIONS: tuple[tuple[str, str, str], ...] = (
    ("duty", "Duty", "D"),
    ("intellect", "Intellect", "I"),
    ("adversity", "Adversity", "A"),
    ("mating", "Mating", "M"),
    ("positivity", "pOsitivity", "O"),
    ("negativity", "Negativity", "N"),
    ("deception", "Deception", "D"),
    ("sociality", "Sociality", "S"),
)
DIAMONDS_FIELDS = tuple(f for f, _, _ in DIAMONDS_DIMENSIONS)
DIAMONDS_LABELS = {f: label for f, label, _ in DIAMONDS_DIMENSIONS}
DIAMONDS_DIMENSION_CHOICES = [(label.capitalize(), label) for _, label, _ in DIAMONDS_DIMENSIONS]

one_to_seven = [MinValueValidator(DIAMONDS_MIN), MaxValueValidator(DIAMONDS_MAX)]


class ReviewError(ValidationError):
    """A review action that cannot be carried out as asked; the message says why."""


def _immutable_save(instance, *args, **kwargs):
    if instance.pk is not None and type(instance).objects.filter(pk=instance.pk).exists():
        raise ReviewError(f"{instance} is part of the record and cannot change.")
    return models.Model.save(instance, *args, **kwargs)


# --- Profile review -----------------------------------------------------------------------


class Recommendation(models.TextChoices):
    """App. B.3 'Recommendation and explanation'."""

    ACCEPT = "accept", "Acceptable as-is"
    LOCAL_REVISION = "local_revision", "Local revision needed"
    FLAG = "flag", "Flag for further adjudication"


class CriterionJudgement(models.TextChoices):
    MEETS = "meets", "Meets the criterion"
    CONCERN = "concern", "Concern"


# App. B.3 'Review criteria' 1-5: (field, label, what the guideline asks).
PROFILE_CRITERIA: tuple[tuple[str, str, str], ...] = (
    (
        "trait_alignment",
        "Trait alignment",
        "Compatible with the full five-dimensional configuration, not only the defining "
        "trait. A trait score does not uniquely determine an action or profession.",
    ),
    (
        "internal_coherence",
        "Internal coherence",
        "Description, self-value logic and behavioral patterns are mutually compatible; "
        "contextual variation is allowed when justified.",
    ),
    (
        "occupational_plausibility",
        "Occupational plausibility",
        "The character could plausibly hold the occupation. An atypical trait-occupation "
        "combination alone is not grounds for rejection.",
    ),
    (
        "behavioral_specificity",
        "Behavioral specificity",
        "The eight patterns are concrete, observable and distinct; flag vague labels, "
        "repetition and requirements that every pattern appear in every episode.",
    ),
    (
        "interpretive_restraint",
        "Interpretive restraint",
        "No unsupported clinical diagnoses, moral judgments or overly categorical claims.",
    ),
)
PROFILE_CRITERIA_FIELDS = tuple(f for f, _, _ in PROFILE_CRITERIA)

BIG_FIVE_FIELDS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
BIG_FIVE_LETTER_FIELD = dict(zip("OCEAN", BIG_FIVE_FIELDS, strict=True))

# The profile fields a change request or a senior edit may address (App. B.1).
PROFILE_FIELD_CHOICES = [
    ("construction_label", "Construction label"),
    ("occupation", "Occupation"),
    ("big_five", "Big Five vector"),
    ("description", "Description"),
    ("self_value_logic", "Self-value logic"),
    *[(f"core_pattern_{i}", f"Core pattern {i}") for i in range(1, CORE_PATTERN_COUNT + 1)],
]
PROFILE_FIELD_LABELS = dict(PROFILE_FIELD_CHOICES)


def profile_field_text(version: ProfileVersion, field: str) -> str:
    """The text of one reviewable field, as a reviewer reads and quotes it."""
    if field == "big_five":
        return ", ".join(f"{k}={v:.2f}" for k, v in version.big_five.items())
    if field.startswith("core_pattern_"):
        index = int(field.removeprefix("core_pattern_")) - 1
        patterns = version.core_patterns or []
        return patterns[index] if 0 <= index < len(patterns) else ""
    return getattr(version, field)


class ProfileReviewCase(models.Model):
    """One round of review of a character's draft profile, ending in a frozen version."""

    class Status(models.TextChoices):
        REVIEWING = "reviewing", "With the reviewers"
        ADJUDICATING = "adjudicating", "Awaiting the senior expert"
        FROZEN = "frozen", "Frozen"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    reviewed_version = models.OneToOneField(
        ProfileVersion, on_delete=models.PROTECT, related_name="review_case"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REVIEWING)
    final_version = models.OneToOneField(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    suitability_note = models.TextField(blank=True)
    frozen_at = models.DateTimeField(null=True, blank=True)
    frozen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character__key", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["character"],
                condition=~models.Q(status="frozen"),
                name="profile_review_one_open_case",
            )
        ]

    def __str__(self):
        return f"review of {self.reviewed_version}"


class ProfileReview(models.Model):
    """One primary annotator's review of a case's reviewed version (App. B.3)."""

    case = models.ForeignKey(ProfileReviewCase, on_delete=models.PROTECT, related_name="reviews")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    recommendation = models.CharField(max_length=16, choices=Recommendation.choices, blank=True)
    trait_alignment = models.CharField(max_length=8, choices=CriterionJudgement.choices, blank=True)
    internal_coherence = models.CharField(
        max_length=8, choices=CriterionJudgement.choices, blank=True
    )
    occupational_plausibility = models.CharField(
        max_length=8, choices=CriterionJudgement.choices, blank=True
    )
    behavioral_specificity = models.CharField(
        max_length=8, choices=CriterionJudgement.choices, blank=True
    )
    interpretive_restraint = models.CharField(
        max_length=8, choices=CriterionJudgement.choices, blank=True
    )
    explanation = models.TextField(blank=True)
    unresolved_concern = models.TextField(blank=True)
    missing_information = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["case", "submitted_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["case", "reviewer"], name="profile_review_unique")
        ]

    def __str__(self):
        return f"{self.case.reviewed_version} reviewed by {self.reviewer}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None


class ChangeRequest(models.Model):
    """A field-level change request: field, passage, concern, suggested correction."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    review = models.ForeignKey(ProfileReview, on_delete=models.PROTECT, related_name="requests")
    field = models.CharField(max_length=32, choices=PROFILE_FIELD_CHOICES)
    passage = models.TextField(help_text="The passage of the field the request is about.")
    concern = models.TextField()
    suggested_correction = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolution_reason = models.TextField(blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_in_version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["review", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(status="rejected") | ~models.Q(resolution_reason=""),
                name="change_request_rejection_has_reason",
            )
        ]

    def __str__(self):
        return f"change request {self.pk} on {self.get_field_display()}"


class ProfileEdit(models.Model):
    """The senior expert's field-level edit: ``from_version`` → ``to_version``."""

    case = models.ForeignKey(ProfileReviewCase, on_delete=models.PROTECT, related_name="edits")
    from_version = models.ForeignKey(ProfileVersion, on_delete=models.PROTECT, related_name="+")
    to_version = models.OneToOneField(
        ProfileVersion, on_delete=models.PROTECT, related_name="created_by_edit"
    )
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    anchor_change_confirmed = models.BooleanField(default=False)
    diff = models.JSONField(help_text="Field-level diff: [{field, label, before, after, ops}].")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["case", "created_at", "pk"]

    def __str__(self):
        return f"edit {self.from_version} → v{self.to_version.number}"

    save = _immutable_save


# --- Scenario review ----------------------------------------------------------------------

# The four-component schema's content fields (App. C.1 Table 11), as ``Scenario`` stores them.
SCENARIO_CONTENT_FIELDS = (
    "stage",
    "age_range",
    "age",
    "diamonds_dimension",
    "name",
    "category",
    "intensity",
    "description_for_agent",
    "setting_location",
    "setting_time",
    "setting_atmosphere",
    "context_text",
    "trigger_sender",
    "trigger_message",
    "action_required",
)
# App. L.4 field 6.
SCENARIO_INTENSITIES = ("Low", "Medium", "High", "Very High", "Extreme")


class ScenarioBlueprint(models.Model):
    """An expert-drafted summary (seed 000 §2.3 Stage 1) for LLM expansion (Stage 2)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the expansion"
        EXPANDED = "expanded", "Expanded into a draft scenario"
        FAILED = "failed", "Expansion failed"

    title = models.CharField(max_length=300)
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


class ScenarioVersion(models.Model):
    """One immutable version of a scenario's content; ``Scenario`` holds the current one."""

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
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    age_range = models.CharField(max_length=40)
    age = models.PositiveSmallIntegerField()
    diamonds_dimension = models.CharField(max_length=20, blank=True)
    name = models.CharField(max_length=300)
    category = models.CharField(max_length=300)
    intensity = models.CharField(max_length=40)
    description_for_agent = models.TextField()
    setting_location = models.TextField()
    setting_time = models.CharField(max_length=300)
    setting_atmosphere = models.TextField()
    context_text = models.TextField()
    trigger_sender = models.CharField(max_length=300)
    trigger_message = models.TextField()
    action_required = models.TextField(blank=True)

    class Meta:
        ordering = ["scenario", "number"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "number"], name="scenario_version_unique")
        ]

    def __str__(self):
        return f"{self.scenario.scenario_id} v{self.number}"

    save = _immutable_save

    def content(self) -> dict:
        return {f: getattr(self, f) for f in SCENARIO_CONTENT_FIELDS}


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

    save = _immutable_save


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

    save = _immutable_save


class FinalDiamondsRating(DiamondsScores):
    """The scenario's final rating: agreed values where the two differed by more than one
    point (``reassessed``), the resolution rule elsewhere (``review_services``)."""

    review = models.OneToOneField(ScenarioReview, on_delete=models.PROTECT, related_name="final")
    reassessed = models.JSONField(default=list, help_text="Dimensions jointly re-assessed.")
    note = models.TextField(blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = _scale_constraints("final_diamonds")

    def __str__(self):
        return f"final DIAMONDS rating of {self.review.scenario.scenario_id}"

    save = _immutable_save


# --- History ------------------------------------------------------------------------------


class ReviewEvent(models.Model):
    """Append-only history of every review transition: who, when, what changed."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=64)
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    scenario = models.ForeignKey(
        Scenario, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.action} by {self.actor} at {self.created_at:%Y-%m-%d %H:%M}"

    save = _immutable_save
