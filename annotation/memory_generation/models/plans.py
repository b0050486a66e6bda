"""Weight vectors and quota plans (seed 000 App. B.4)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from annotation.corpus.models import Character, ProfileVersion
from annotation.memory_generation import quota

__all__ = ["PLAN_NOTE_MAX", "QuotaWeights", "MemoryPlan", "WeightsInUseError"]


# A plan's or a weights version's note: one short line (issue #24 keeps the column's limit).
PLAN_NOTE_MAX = 300


class WeightsInUseError(ValidationError):
    """A weight vector a plan used was about to change."""


class QuotaWeights(models.Model):
    """One numbered version of the construction-time weight vector ``w`` (45 numbers,
    ages 6–50). Immutable once a plan used it: editing the weights makes the next
    version, and every plan names the version it was computed with."""

    number = models.PositiveIntegerField(unique=True)
    weights = models.JSONField(help_text="45 weights ≥ 0, one per age from 6 to 50.")
    note = models.CharField(max_length=PLAN_NOTE_MAX, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        verbose_name_plural = "quota weights"

    def __str__(self):
        return f"quota weights v{self.number}"

    def save(self, *args, **kwargs):
        if self.pk is not None and self.plans.exists():
            raise WeightsInUseError(
                f"{self} was used by a plan and cannot change; create the next version."
            )
        super().save(*args, **kwargs)

    def clean(self):
        problems = quota.weight_problems(self.weights)
        if problems:
            raise ValidationError({"weights": problems})


class MemoryPlan(models.Model):
    """The per-segment quotas for one character (App. B.4), computed before a launch.

    ``existing`` is the accepted memories per segment when the plan was made (the
    audited corpus), ``quotas`` what to generate. An initial plan spreads
    ``target − k`` by the weights; a top-up plan (after an audit, ``previous`` the plan
    it follows) does the same with the k the audit kept (App. B.4)."""

    class Kind(models.TextChoices):
        INITIAL = "initial", "Initial allocation"
        TOP_UP = "top_up", "Top-up after the audit"

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    profile_version = models.ForeignKey(ProfileVersion, on_delete=models.PROTECT, related_name="+")
    weights = models.ForeignKey(QuotaWeights, on_delete=models.PROTECT, related_name="plans")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.INITIAL)
    previous = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    target = models.PositiveIntegerField(default=quota.TARGET_PER_CHARACTER)
    accepted = models.PositiveIntegerField(help_text="k: accepted memories when planned.")
    existing = models.JSONField(help_text="Accepted memories per segment (45).")
    quotas = models.JSONField(help_text="Memories to generate per segment (45).")
    audit_run_id = models.PositiveIntegerField(
        null=True, blank=True, help_text="The finalized audit run the accepted count came from."
    )
    note = models.CharField(max_length=PLAN_NOTE_MAX, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["character__key", "-created_at"]

    def __str__(self):
        return f"{self.get_kind_display().lower()} plan {self.pk} for {self.character.key}"

    @property
    def deficit(self) -> int:
        return sum(self.quotas or [])

    def segments(self) -> list[dict]:
        return [
            {"age": age, "existing": e, "quota": q}
            for age, e, q in zip(quota.SEGMENT_AGES, self.existing, self.quotas, strict=True)
        ]

    def bins(self) -> list[quota.BinTotal]:
        return quota.by_bin(self.quotas, self.existing)
