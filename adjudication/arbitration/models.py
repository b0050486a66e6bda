"""Reference responses and multiple-choice items.

This holds what the public release carries (seed 000 §2.4, App. D.2-D.3); the
arbitration and MCQ-assembly workflows add their provenance to these records.
"""

from django.conf import settings
from django.db import models

from annotation.comparison.models import ComparisonPair
from annotation.corpus.life_stages import LIFE_STAGE_CHOICES
from annotation.corpus.models import Character, Scenario
from annotation.generation.models import Candidate, ModelFamily

OPTION_LABELS = ("A", "B", "C", "D")


class ReferenceResponse(models.Model):
    """The keyed response of one (character, scenario) pair.

    A pair has at most one *current* reference (``superseded_at`` null). An imported
    reference from the release stays as history when the consensus-then-arbitration
    workflow of seed 000 §2.4 Stage 2 adopts its own: the new row ``supersedes`` it.
    The importer reads current rows only and never replaces an adjudicated one.

    !!! BLINDING !!!  ``source_candidate`` and ``source_family`` are provenance for
    analysis (App. D.2 outcome); never shown to annotators.
    """

    class DecisionType(models.TextChoices):
        IMPORTED = "imported", "Imported from a release"
        UNANIMOUS = "unanimous", "Adopted unanimously"
        ADOPTED = "adopted", "Adopted by the arbitrator"
        EDITED = "edited", "Edited by the arbitrator"
        REWRITTEN = "rewritten", "Rewritten by the arbitrator"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="references")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="references")
    summary = models.TextField()
    emotional_tone = models.TextField(blank=True)
    core_reasoning = models.TextField(blank=True)
    value_orientation = models.TextField(blank=True)
    final_decision = models.TextField()
    decision_type = models.CharField(max_length=16, choices=DecisionType.choices)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Provenance of a reference adopted through comparison and arbitration.
    source_candidate = models.ForeignKey(
        Candidate, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # db_default: the importer bulk-loads references with COPY, naming its own columns.
    source_family = models.CharField(
        max_length=16, choices=ModelFamily.choices, blank=True, db_default=""
    )
    arbitrator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    word_edit_rate = models.FloatField(null=True, blank=True)
    superseded_at = models.DateTimeField(null=True, blank=True)
    supersedes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["character__key", "scenario__scenario_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "scenario"],
                condition=models.Q(superseded_at__isnull=True),
                name="reference_per_pair",
            ),
            models.CheckConstraint(
                condition=~models.Q(final_decision=""), name="reference_has_final_decision"
            ),
        ]

    def __str__(self):
        return f"{self.character.key} × {self.scenario.scenario_id}"

    @property
    def inner_consciousness(self) -> dict:
        return {
            "summary": self.summary,
            "emotional_tone": self.emotional_tone,
            "core_reasoning": self.core_reasoning,
            "value_orientation": self.value_orientation,
        }


class AdjudicationSettings(models.Model):
    """Site-wide switches of arbitration, one row (pk 1), edited in the Django admin."""

    show_family_to_arbitrator = models.BooleanField(
        default=False,
        help_text="Show each candidate's model family on the arbitration page. Off by "
        "default: seed 000 App. D.2 hides families during annotation.",
    )

    class Meta:
        verbose_name_plural = "adjudication settings"

    def __str__(self):
        return "adjudication settings"

    @classmethod
    def current(cls) -> "AdjudicationSettings":
        return cls.objects.filter(pk=1).first() or cls(pk=1)


class ArbitrationDecision(models.Model):
    """The arbitrator's decision on an escalated pair (App. D.2, arbitration guideline).

    At most one open decision per pair (``reopened_at`` null): the unique constraint
    and a row lock on the pair keep it to one when two arbitrators act at once. An admin
    may reopen it; the decision stays here, marked, and the pair returns to the queue.
    """

    class Kind(models.TextChoices):
        DISCARDED = "discarded", "Discarded the pair"
        ADOPTED = "adopted", "Adopted a candidate as-is"
        EDITED = "edited", "Edited a candidate"
        REWRITTEN = "rewritten", "Rewrote the response"

    pair = models.ForeignKey(ComparisonPair, on_delete=models.PROTECT, related_name="decisions")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    arbitrator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    source_candidate = models.ForeignKey(
        Candidate, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    reference = models.OneToOneField(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="decision"
    )
    decided_at = models.DateTimeField(auto_now_add=True)
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reopen_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["pair", "decided_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["pair"],
                condition=models.Q(reopened_at__isnull=True),
                name="one_open_decision_per_pair",
            )
        ]

    def __str__(self):
        return f"{self.get_kind_display()} on {self.pair_id}"


class McqItem(models.Model):
    """A four-option item: the key plus three distractors from other characters.

    ``version`` counts the item's versions; every version is kept as a
    :class:`McqItemVersion` snapshot (options in order, key, seed, assembly
    parameters). ``status`` is the item's place in assembly → screening → review;
    only ``final`` items belong to the exported benchmark. Imported release items
    arrive ``final``: the authors already screened and reviewed them.

    !!! BLINDING !!!  ``correct_answer``, ``McqOption.is_correct`` and the options'
    ``source_character``/``source_reference`` are the key and its provenance: never
    serialized to participants, evaluated models or reference-label audit experts.
    """

    class Status(models.TextChoices):
        NEEDS_COMPLETION = "needs_completion", "Needs human completion"
        SCREENING = "screening", "Awaiting LLM screening"
        FLAGGED = "flagged", "Flagged for item review"
        FINAL = "final", "In the final set"
        REMOVED = "removed", "Removed"

    question_id = models.CharField(max_length=120, unique=True)
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="mcq_items")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="mcq_items")
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    correct_answer = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    version = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=20,
        choices=Status.choices,
        default=Status.FINAL,
        db_default=Status.FINAL,
        db_index=True,
    )
    # The reference whose final decision is the key (null for items imported without one).
    reference = models.ForeignKey(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="items"
    )
    # Option-order seed and assembly parameters of the current version.
    seed = models.BigIntegerField(null=True, blank=True)
    assembly_params = models.JSONField(default=dict, blank=True, db_default={})

    class Meta:
        ordering = ["question_id"]

    def __str__(self):
        return self.question_id


class McqOption(models.Model):
    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="options")
    label = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    content = models.TextField()
    is_correct = models.BooleanField()
    is_generated = models.BooleanField(default=False)
    source_character = models.CharField(max_length=16)
    # The adjudicated reference this option's text came from (null: imported or generated).
    source_reference = models.ForeignKey(
        ReferenceResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["item", "label"]
        constraints = [
            models.UniqueConstraint(fields=["item", "label"], name="mcq_option_label_unique")
        ]

    def __str__(self):
        return f"{self.item.question_id} {self.label}"


class McqItemVersion(models.Model):
    """An immutable snapshot of one version of an item.

    ``options`` is the list of option dicts in label order: ``label, content,
    is_correct, is_generated, source_character, source_reference`` (an id or null).
    ``origin`` says which workflow made the version (see :class:`Origin`).
    """

    class Origin(models.TextChoices):
        IMPORT = "import", "Imported"
        ASSEMBLY = "assembly", "Assembled"
        REVIEW = "review", "Item review"
        LABEL_AUDIT = "label_audit", "Reference-label audit"

    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    correct_answer = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    options = models.JSONField()
    seed = models.BigIntegerField(null=True, blank=True)
    assembly_params = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices)
    note = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "number"]
        constraints = [
            models.UniqueConstraint(fields=["item", "number"], name="mcq_version_number_unique")
        ]

    def __str__(self):
        return f"{self.item.question_id} v{self.number}"
