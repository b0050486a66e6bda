"""Blinded three-candidate comparison (seed 000 §2.4 Stage 2, App. D.2).

A ``ComparisonPair`` is one (character, scenario) with its three candidates. Each
``PairAssignment`` gives one primary annotator the pair under an opaque ``public_id``
and a stored random permutation: letter A, B, C → a canonical candidate. The annotator
saves drafts (``ComparisonDraft``) and submits one ``ComparisonJudgment`` (unique per
assignment, so a double submit cannot make two); every submitted content is kept as a
``ComparisonJudgmentVersion``. When every assigned annotator has submitted, the pair is
routed: unanimous + as-is + no flag → reference response; else → arbitration
(``adjudication.ArbitrationDecision``).

!!! BLINDING !!!  ``PairAssignment.permutation`` and ``ComparisonJudgment.
selected_candidate`` name canonical candidates, whose family is provenance: neither may
be serialized into anything an annotator reaches. Annotator pages and URLs carry only
``public_id`` and letters; ``comparison_selectors`` is the only reader.
"""

import uuid

from django.conf import settings
from django.db import models

from annotation.corpus.models import Character, ProfileVersion, Scenario
from annotation.generation.models import Candidate, GenerationRun
from core.display import character_name, scenario_title
from core.text_rules import NOTE

__all__ = [
    "COMPARISON_LETTERS",
    "ComparisonDraft",
    "ComparisonJudgment",
    "ComparisonJudgmentVersion",
    "ComparisonPair",
    "PairAssignment",
]

# App. D.2: "Three anonymized candidate annotations (A, B, and C)".
COMPARISON_LETTERS = ("A", "B", "C")


class ComparisonPair(models.Model):
    class Status(models.TextChoices):
        ANNOTATING = "annotating", "With the annotators"
        ESCALATED = "escalated", "Awaiting arbitration"
        ADOPTED = "adopted", "Adopted unanimously"
        RESOLVED = "resolved", "Resolved by the arbitrator"
        DISCARDED = "discarded", "Discarded by the arbitrator"
        REGENERATING = "regenerating", "Sent back for regeneration"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="+")
    profile_version = models.ForeignKey(ProfileVersion, on_delete=models.PROTECT, related_name="+")
    candidates = models.ManyToManyField(Candidate, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ANNOTATING)
    escalation_reasons = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    routed_at = models.DateTimeField(null=True, blank=True)
    # Regeneration (issue #22): an arbitrator who finds all three candidates unusable but
    # the pair suitable sends it back; a run generates new candidates with their guidance
    # and the next round's pair is a fresh blind comparison of them. Every round stays.
    round = models.PositiveIntegerField(default=1)
    previous_round = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="next_round"
    )
    regeneration_run = models.ForeignKey(
        GenerationRun,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The run generating this pair's next round (set when sent back).",
    )

    class Meta:
        ordering = ["character__key", "scenario__scenario_id", "round"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "scenario", "round"], name="comparison_pair_round_unique"
            )
        ]

    def __str__(self):
        label = f"{self.character.key} × {self.scenario.scenario_id}"
        return f"{label} (round {self.round})" if self.round > 1 else label

    @property
    def title(self) -> str:
        """How the pages people work in name the pair: ``Character 3 × The Entrusted
        Caretaker`` (ids stay in ``str()``, for records and exports)."""
        label = f"{character_name(self.character)} × {scenario_title(self.scenario)}"
        return f"{label} (round {self.round})" if self.round > 1 else label

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.ANNOTATING


class PairAssignment(models.Model):
    """One annotator's blinded view of one pair.

    ``permutation`` is ``[candidate pk for A, for B, for C]``: letters are per
    annotator; map back with ``comparison_services.canonical_candidate``."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    pair = models.ForeignKey(ComparisonPair, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="comparison_assignments"
    )
    permutation = models.JSONField()
    batch = models.PositiveIntegerField(default=1)
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    assigned_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Never by pk: the queue order must not follow database ids (blinding).
        ordering = ["batch", "pair__character__key", "pair__scenario__scenario_id"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "annotator"], name="pair_assignment_unique")
        ]

    def __str__(self):
        return f"{self.pair} for {self.annotator}"


class Suitability(models.TextChoices):
    SUITABLE = "suitable", "Suitable"
    FLAGGED = "flagged", "Flag for arbitration"


class Rating(models.TextChoices):
    AS_IS = "as_is", "Acceptable as-is"
    PARTIAL = "partial", "Acceptable with partial revisions"


# App. D.2 Step 2, in the guideline's order: (field, label, question).
COMPARISON_CRITERIA = (
    (
        "persona_consistency",
        "Persona consistency",
        "Is the decision consistent with the character's specified traits and behavioral "
        "tendencies, supplied experiences, and current scenario?",
    ),
    (
        "memory_grounding",
        "Memory grounding",
        "Is the decision supported by the supplied autobiographical memories without "
        "contradicting them or introducing unsupported experiences?",
    ),
    (
        "situational_fit",
        "Situational fit",
        "Does the response directly address the trigger event and specify a behavior that "
        "is feasible in the scenario?",
    ),
    (
        "psychological_plausibility",
        "Psychological plausibility",
        "Does the reasoning form a coherent connection from the character's profile and "
        "memories to the proposed action?",
    ),
)
CRITERIA_FIELDS = tuple(f"{name}_note" for name, _, _ in COMPARISON_CRITERIA)
JUDGMENT_FIELDS = (
    "suitability",
    "suitability_reason",
    *CRITERIA_FIELDS,
    "selected_letter",
    "rating",
    "selection_rationale",
    "revision_guidance",
)


# The limit of each field of the guideline's form as typed (issue #24): the column's for
# the choices, a note's for the texts. The form, the API, the draft and the submit use it.
JUDGMENT_TEXT_LIMITS = {
    "suitability": 16,
    "suitability_reason": NOTE,
    **{f: NOTE for f in CRITERIA_FIELDS},
    "selected_letter": 1,
    "rating": 16,
    "selection_rationale": NOTE,
    "revision_guidance": NOTE,
}
JUDGMENT_TEXT_LABELS = {"suitability_reason": "Reason for the flag"}


class JudgmentContent(models.Model):
    suitability = models.CharField(
        max_length=JUDGMENT_TEXT_LIMITS["suitability"], choices=Suitability.choices
    )
    suitability_reason = models.TextField(blank=True)
    persona_consistency_note = models.TextField(blank=True)
    memory_grounding_note = models.TextField(blank=True)
    situational_fit_note = models.TextField(blank=True)
    psychological_plausibility_note = models.TextField(blank=True)
    selected_letter = models.CharField(
        max_length=JUDGMENT_TEXT_LIMITS["selected_letter"],
        choices=[(x, x) for x in COMPARISON_LETTERS],
    )
    selected_candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    rating = models.CharField(max_length=JUDGMENT_TEXT_LIMITS["rating"], choices=Rating.choices)
    selection_rationale = models.TextField()
    revision_guidance = models.TextField(blank=True)

    class Meta:
        abstract = True

    def content(self) -> dict:
        return {f: getattr(self, f) for f in JUDGMENT_FIELDS}


class ComparisonJudgment(JudgmentContent):
    """An annotator's current submission; the one-to-one makes submit idempotent."""

    assignment = models.OneToOneField(
        PairAssignment, on_delete=models.PROTECT, related_name="judgment"
    )
    version = models.PositiveIntegerField(default=1)
    submitted_at = models.DateTimeField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"judgment v{self.version} of {self.assignment}"


class ComparisonJudgmentVersion(JudgmentContent):
    """Every content a judgment was submitted with (append-only)."""

    judgment = models.ForeignKey(
        ComparisonJudgment, on_delete=models.CASCADE, related_name="versions"
    )
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judgment", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["judgment", "number"], name="comparison_judgment_version_unique"
            )
        ]

    def __str__(self):
        return f"{self.judgment} version {self.number}"


class ComparisonDraft(models.Model):
    """Autosaved form input (letters only, as typed), so a closed tab loses nothing."""

    assignment = models.OneToOneField(
        PairAssignment, on_delete=models.CASCADE, related_name="draft"
    )
    data = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"draft of {self.assignment}"
