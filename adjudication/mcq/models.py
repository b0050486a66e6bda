"""Assembly runs, LLM screenings and item-review decisions (seed 000 §2.4 Stage 3, App. D.3).

Imported at the bottom of :mod:`adjudication.arbitration.models` so Django sees these models in
the ``adjudication`` app.
"""

from django.conf import settings
from django.db import models

from adjudication.arbitration.models import McqItem, McqItemVersion

__all__ = ["McqAssemblyRun", "McqReviewDecision", "McqScreening"]


class McqAssemblyRun(models.Model):
    """One pass of automatic assembly over every pair with a current reference and no item."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Measure, thresholds, selector — what every item of this run was assembled under.
    params = models.JSONField(default=dict, blank=True)
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    assembled = models.PositiveIntegerField(default=0)
    needs_completion = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"assembly run {self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        return round(100 * self.processed / self.total) if self.total else 100


class McqScreening(models.Model):
    """One LLM screening of one item version under the App. D.3.1 guideline.

    ``output`` is the judge's validated JSON (the D.3.1 output contract). A
    ``technical_failure`` is kept apart from a ``flagged`` verdict: the judge never gave a
    valid, consistent answer within the retry bound, and the item goes to review
    because nobody has screened it, not because a check failed.

    !!! BLINDING !!!  ``judge_family`` is provenance; never shown to annotators.
    """

    class Outcome(models.TextChoices):
        PENDING = "pending", "Pending"
        PASSED = "passed", "Passed"
        FLAGGED = "flagged", "Flagged"
        TECHNICAL_FAILURE = "technical_failure", "Technical failure"

    item = models.ForeignKey(McqItem, on_delete=models.CASCADE, related_name="screenings")
    item_version = models.ForeignKey(McqItemVersion, on_delete=models.PROTECT, related_name="+")
    outcome = models.CharField(
        max_length=20, choices=Outcome.choices, default=Outcome.PENDING, db_index=True
    )
    judge_family = models.CharField(max_length=32, blank=True)
    judge_model = models.CharField(max_length=120, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    output = models.JSONField(null=True, blank=True)
    # One entry per attempt that was rejected: what was wrong with it.
    attempt_errors = models.JSONField(default=list, blank=True)
    needs_human_review = models.BooleanField(default=False)
    prompt_sha256 = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["item_version"],
                condition=models.Q(outcome="pending"),
                name="one_pending_screening_per_version",
            )
        ]

    def __str__(self):
        return f"screening of {self.item_id} v{self.item_version_id} ({self.outcome})"


class McqReviewDecision(models.Model):
    """A reviewer's action on a flagged or incomplete item (App. D.3.1, item review).

    ``item_version`` is the version the reviewer looked at; ``result_version`` the
    version the action produced (null when the item was retained or removed). The
    reference-label audit's conflict-of-interest check reads ``reviewer``.
    """

    class Action(models.TextChoices):
        RETAIN = "retain", "Retained as-is"
        REVISE_DISTRACTOR = "revise_distractor", "Revised a distractor"
        REPLACE_DISTRACTOR = "replace_distractor", "Replaced a distractor"
        GENERATE_DISTRACTOR = "generate_distractor", "Added a generated distractor"
        RECONSIDER_KEY = "reconsider_key", "Reconsidered the reference / key"
        RECONSTRUCT = "reconstruct", "Reconstructed the item"
        REMOVE = "remove", "Removed the item"

    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="review_decisions")
    item_version = models.ForeignKey(McqItemVersion, on_delete=models.PROTECT, related_name="+")
    result_version = models.ForeignKey(
        McqItemVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    screening = models.ForeignKey(
        McqScreening, null=True, blank=True, on_delete=models.PROTECT, related_name="decisions"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="mcq_review_decisions"
    )
    action = models.CharField(max_length=24, choices=Action.choices)
    note = models.TextField(blank=True)
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "decided_at"]

    def __str__(self):
        return f"{self.get_action_display()} on {self.item_id}"
