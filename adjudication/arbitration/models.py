"""Reference responses and arbitration decisions (seed 000 §2.4 Stage 2, App. D.2).

A reference is what the public release carries as ground truth; the consensus-then-
arbitration workflow adds its provenance to these records.
"""

from django.conf import settings
from django.db import models

from annotation.comparison.models import ComparisonPair
from annotation.corpus.models import Character, Scenario
from annotation.generation.models import Candidate, ModelFamily


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
    # App. D.2's word edit rate against the source candidate, two ways: over all text
    # fields (summary, emotional tone, core reasoning, final decision, joined), and over
    # the keyed text alone, the final decision the MCQ keys (the paper's "≈15%").
    word_edit_rate = models.FloatField(
        null=True,
        blank=True,
        help_text="Word edit rate over all text fields (rationale and final decision).",
    )
    keyed_word_edit_rate = models.FloatField(
        null=True,
        blank=True,
        help_text="Word edit rate over the final decision alone: the keyed text of the MCQ.",
    )
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
    def provenance(self) -> str:
        """Who made it, said once: "Edited by ana", not "Edited by the arbitrator by ana"."""
        verbs = {
            self.DecisionType.ADOPTED: "Adopted",
            self.DecisionType.EDITED: "Edited",
            self.DecisionType.REWRITTEN: "Rewritten",
        }
        if self.arbitrator_id and self.decision_type in verbs:
            return f"{verbs[self.decision_type]} by {self.arbitrator.get_username()}"
        return self.get_decision_type_display()

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
        REGENERATE = "regenerate", "Asked for regeneration"

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
    # On an edit: the judgments whose revision guidance the edit follows, as the arbitrator
    # ticked them (arbitration analytics: how often each annotator's guidance is followed).
    guidance_followed = models.ManyToManyField(
        "annotation.ComparisonJudgment", blank=True, related_name="+"
    )

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
