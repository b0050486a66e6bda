"""The reference-label audit (seed 000 §2.4 last paragraph, App. D.4, Table 14).

A separate team, none of whom took part in construction, audits a stratified random
sample of the final MCQs: three audit experts each select, blind to the key, the option
most likely and most reasonable for the target character; items where all three chose
the key are approved, every other item goes to the audit adjudicator.

Gathered by :mod:`audit.models` so Django sees these models in ``audit``.

!!! BLINDING !!!  ``LabelAuditItem.key_at_audit``, ``n_on_key``, ``status`` and
``outcome``, the options' ``is_correct``/``source_character`` in ``item_version``, the
other experts' :class:`LabelSelection` rows and :class:`LabelAdjudication` are never
serialized to an audit expert. ``audit.reference_labels.expert_pages.expert_item_page`` is
the only reader that serves them, and it copies the option label and text only.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from adjudication.mcq.models import OPTION_LABELS, McqItem, McqItemVersion
from core.life_stages import LIFE_STAGE_CHOICES
from core.protocol import AUDIT_ITEMS_PER_STRATUM

__all__ = [
    "LabelAdjudication",
    "LabelAudit",
    "LabelAuditError",
    "LabelAuditEvent",
    "LabelAuditExpert",
    "LabelAuditItem",
    "LabelSelection",
]

OPTION_CHOICES = [(x, x) for x in OPTION_LABELS]


class LabelAuditError(ValidationError):
    """A step of the label audit that cannot be taken; the message says why and what to do."""


class LabelAudit(models.Model):
    class Status(models.TextChoices):
        SELECTING = "selecting", "Experts selecting"
        COMPLETE = "complete", "Complete"

    note = models.CharField(max_length=300, blank=True)
    seed = models.BigIntegerField(help_text="The sampling seed, recorded so the draw reproduces.")
    items_per_stratum = models.PositiveSmallIntegerField(default=AUDIT_ITEMS_PER_STRATUM)
    # {"frame": {"CHAR_01|school_age": ["Q_...", ...]}, "short": [{"character", "stage",
    #  "available", "wanted"}], "strata": n, "final_items": n}: the sampling frame as it was,
    # so the draw can be repeated from the record even after the final set changes.
    sample_report = models.JSONField(default=dict, blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SELECTING)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"Reference-label audit #{self.pk}"


class LabelAuditExpert(models.Model):
    """One of the audit's three experts; ``position`` 1-3 is how pages name them."""

    audit = models.ForeignKey(LabelAudit, on_delete=models.CASCADE, related_name="experts")
    expert = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["audit", "position"]
        constraints = [
            models.UniqueConstraint(fields=["audit", "expert"], name="label_audit_expert_once"),
            models.UniqueConstraint(fields=["audit", "position"], name="label_audit_expert_slot"),
        ]

    def __str__(self):
        return f"expert {self.position} of {self.audit}"


class LabelAuditItem(models.Model):
    """One sampled item, audited as the version it had when it was drawn."""

    class Status(models.TextChoices):
        SELECTING = "selecting", "Awaiting the experts' selections"
        APPROVED = "approved", "Approved: all three experts chose the key"
        ADJUDICATING = "adjudicating", "Awaiting the adjudicator"
        RESOLVED = "resolved", "Adjudicated"

    class Outcome(models.TextChoices):
        APPROVED = "approved", "Approved (3/3 on the key)"
        USABLE_AS_IS = "usable_as_is", "Usable as-is"
        EDITED = "edited", "Wording edited"
        KEY_CHANGED = "key_changed", "Key changed"
        REMOVED = "removed", "Removed"

    audit = models.ForeignKey(LabelAudit, on_delete=models.CASCADE, related_name="items")
    item = models.ForeignKey(McqItem, on_delete=models.PROTECT, related_name="label_audits")
    item_version = models.ForeignKey(McqItemVersion, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(help_text="Order of the sample: stratum, then draw.")
    character_key = models.CharField(max_length=16)
    stage = models.CharField(max_length=32, choices=LIFE_STAGE_CHOICES)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.SELECTING, db_index=True
    )
    key_at_audit = models.CharField(max_length=1, choices=OPTION_CHOICES, blank=True)
    n_on_key = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    compared_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["audit", "position"]
        constraints = [
            models.UniqueConstraint(fields=["audit", "item"], name="label_audit_item_once"),
            models.UniqueConstraint(fields=["audit", "position"], name="label_audit_item_slot"),
        ]

    def __str__(self):
        return f"{self.item_id} in {self.audit}"


class LabelSelection(models.Model):
    """One expert's blind selection on one item. A row with ``submitted_at`` null is the
    autosaved draft; submitting fixes it (App. D.4 compares the *initial* selections)."""

    audit_item = models.ForeignKey(
        LabelAuditItem, on_delete=models.CASCADE, related_name="selections"
    )
    expert = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    choice = models.CharField(max_length=1, choices=OPTION_CHOICES, blank=True)
    note = models.TextField(blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["audit_item", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["audit_item", "expert"], name="label_selection_once_per_expert"
            ),
            models.CheckConstraint(
                condition=models.Q(submitted_at__isnull=True) | ~models.Q(choice=""),
                name="label_selection_submitted_has_choice",
            ),
        ]

    def __str__(self):
        return f"selection {self.choice or '-'} on {self.audit_item_id}"


class LabelAdjudication(models.Model):
    """The adjudicator's decision on an item without complete three-expert agreement."""

    class Decision(models.TextChoices):
        USABLE_AS_IS = "usable_as_is", "Usable as-is: keep the item and its key"
        WORDING_EDIT = "wording_edit", "Wording edit: revise option texts, keep the key"
        KEY_CHANGE = "key_change", "Key change: another option is the reference"
        REMOVAL = "removal", "Removal: take the item out of the final set"

    audit_item = models.OneToOneField(
        LabelAuditItem, on_delete=models.PROTECT, related_name="adjudication"
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(max_length=16, choices=Decision.choices)
    note = models.TextField(blank=True)
    new_key = models.CharField(max_length=1, choices=OPTION_CHOICES, blank=True)
    result_version = models.ForeignKey(
        McqItemVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.get_decision_display()} on {self.audit_item_id}"


class LabelAuditEvent(models.Model):
    """Append-only history of the label audit: who did what, when."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=60)
    audit = models.ForeignKey(LabelAudit, on_delete=models.CASCADE, related_name="events")
    audit_item = models.ForeignKey(
        LabelAuditItem, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return self.action
