"""Reference responses and multiple-choice items.

This holds what the public release carries (seed 000 §2.4, App. D.2-D.3); the
arbitration and MCQ-assembly workflows add their provenance to these records.
"""

from django.db import models

from annotation.life_stages import LIFE_STAGE_CHOICES
from annotation.models import Character, Scenario

OPTION_LABELS = ("A", "B", "C", "D")


class ReferenceResponse(models.Model):
    """The keyed response of one (character, scenario) pair."""

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

    class Meta:
        ordering = ["character__key", "scenario__scenario_id"]
        constraints = [
            models.UniqueConstraint(fields=["character", "scenario"], name="reference_per_pair"),
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


class McqItem(models.Model):
    """A four-option item: the key plus three distractors from other characters."""

    question_id = models.CharField(max_length=120, unique=True)
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="mcq_items")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="mcq_items")
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    correct_answer = models.CharField(max_length=1, choices=[(x, x) for x in OPTION_LABELS])
    version = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

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

    class Meta:
        ordering = ["item", "label"]
        constraints = [
            models.UniqueConstraint(fields=["item", "label"], name="mcq_option_label_unique")
        ]

    def __str__(self):
        return f"{self.item.question_id} {self.label}"
