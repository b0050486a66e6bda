"""Identity-leak flags of candidates and the cleaning edits that resolve them (issue 22,
"Blinding integrity").

A ``LeakFlag`` holds what :func:`annotation.candidate_screening.leaks.screen_texts`
found in one candidate's texts. While a flag is open, every comparison pair holding the
candidate waits: it cannot be assigned and is in nobody's queue. The admin resolves it
by cleaning (``CandidateCleaning``: the candidate's texts are edited in place, the text
before and after, who, when and why are kept here, and the cleaned text is screened
again) or by accepting it with a reason (a false positive).

Cleaning edits the ``Candidate`` row in place so that everything downstream (the
blinded comparison, arbitration, reference adoption and its edit rates, the export)
reads the cleaned text without knowing about screening; the original text lives on in
``CandidateCleaning.before`` and in the export's chain section "candidate_cleaning".
"""

from django.conf import settings
from django.db import models

from annotation.generation.models import Candidate

__all__ = ["SCREENED_FIELDS", "CandidateCleaning", "LeakFlag"]

# The candidate's texts an annotator reads: the inner consciousness and the decision.
SCREENED_FIELDS = ("summary", "emotional_tone", "core_reasoning", "final_decision")


class LeakFlag(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open: the pair waits"
        CLEANED = "cleaned", "Cleaned"
        ACCEPTED = "accepted", "Accepted as a false positive"

    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # [Finding.as_dict(), ...] in field then offset order.
    findings = models.JSONField(default=list)
    # The texts as screened ({field: text}): a re-run does not raise the same accepted
    # findings again.
    screened_texts = models.JSONField(default=dict)
    screened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["candidate"],
                condition=models.Q(status="open"),
                name="leak_flag_one_open_per_candidate",
            )
        ]

    def __str__(self):
        return f"leak flag {self.pk} on candidate {self.candidate_id}"


class CandidateCleaning(models.Model):
    """One cleaning edit of a candidate's texts (append-only)."""

    flag = models.OneToOneField(LeakFlag, on_delete=models.PROTECT, related_name="cleaning")
    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    before = models.JSONField()  # {field: text} of SCREENED_FIELDS before the edit
    after = models.JSONField()
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField()

    class Meta:
        ordering = ["edited_at", "pk"]

    def __str__(self):
        return f"cleaning of candidate {self.candidate_id} (flag {self.flag_id})"
