"""Profile review (seed 000 §2.2 Stage 1, App. B.3) and the construction-stage reviews'
shared history.

The three primary annotators each review a draft ``ProfileVersion`` (``ProfileReview``)
with field-level ``ChangeRequest``\\s; the arbitrator adjudicates the
``ProfileReviewCase``: field-level edits create the next version (``ProfileEdit`` keeps
the diff), every change request is resolved, and the final version is frozen.

``ReviewEvent`` is the append-only history of both construction-stage reviews (this one
and ``annotation.scenario_review``); ``ReviewError`` and ``immutable_save`` are shared
with scenario review too.

!!! BLINDING !!!  A primary annotator never receives another annotator's review or
change request before the case is frozen. The selectors in ``selectors`` are the only
readers and enforce it.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import CORE_PATTERN_COUNT, Character, ProfileVersion, Scenario
from core.protocol import PROFILE_REVIEWERS

__all__ = [
    "ChangeRequest",
    "ProfileEdit",
    "ProfileReview",
    "ProfileReviewCase",
    "ReviewEvent",
]


class ReviewError(ValidationError):
    """A review action that cannot be carried out as asked; the message says why."""


def immutable_save(instance, *args, **kwargs):
    """``save`` of a record that never changes once written (``save = immutable_save``)."""
    if instance.pk is not None and type(instance).objects.filter(pk=instance.pk).exists():
        raise ReviewError(f"{instance} is part of the record and cannot change.")
    return models.Model.save(instance, *args, **kwargs)


class Recommendation(models.TextChoices):
    """App. B.3 'Recommendation and explanation'."""

    ACCEPT = "accept", "Acceptable as-is"
    LOCAL_REVISION = "local_revision", "Local revision needed"
    FLAG = "flag", "Flag for further adjudication"


def accepted_as_is(submitted_recommendations) -> bool:
    """Every reviewer of a case submitted "Acceptable as-is": App. B.3 retains such a
    profile unchanged (no redraft, no senior edit; the senior only freezes it)."""
    recommendations = list(submitted_recommendations)
    return len(recommendations) >= PROFILE_REVIEWERS and all(
        r == Recommendation.ACCEPT for r in recommendations
    )


def accepted_as_is_message(character_key: str) -> str:
    """Why the senior does not edit such a profile (the refusal and the page say it)."""
    return (
        f"{character_key} was accepted as-is by all {PROFILE_REVIEWERS} reviewers: the protocol "
        "keeps a unanimously accepted profile unchanged, so it takes no edit. Make the "
        "final suitability check and freeze it as it is."
    )


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

    save = immutable_save


# --- History (both construction-stage reviews) --------------------------------------------


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

    save = immutable_save
