"""Protocol deviations: every departure from the paper's protocol that the platform lets
an admin make, recorded when it is made and listed in the export manifest.

A stage that lets a rule be bent (a stage gate overridden, a characters' memories used
without a finalized audit, a setting set away from the paper's number) calls
:func:`record_deviation` in the same transaction as the act; nothing updates or deletes
a deviation afterwards.
"""

from django.conf import settings
from django.db import models


class ProtocolDeviation(models.Model):
    class Kind(models.TextChoices):
        GATE_OVERRIDE = "gate_override", "Stage gate overridden"
        UNAUDITED_MEMORIES = "unaudited_memories", "Memories used without a finalized audit"
        SETTING = "setting", "Setting away from the paper's protocol"

    stage = models.CharField(max_length=40, help_text="The pipeline stage, e.g. 'generation'.")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    subject = models.CharField(
        max_length=300, help_text="What it applies to, e.g. 'CHAR_01 × scenario 4'."
    )
    rule = models.CharField(max_length=300, help_text="The rule that was not held.")
    reason = models.TextField(help_text="Why, in the admin's words.")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "core"
        db_table = "heartbench_site_protocoldeviation"  # first created by heartbench_site
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.stage}: {self.rule} ({self.subject})"

    def as_manifest_row(self) -> dict:
        return {
            "stage": self.stage,
            "kind": self.kind,
            "subject": self.subject,
            "rule": self.rule,
            "reason": self.reason,
            "recorded_by": self.recorded_by.get_username() if self.recorded_by else "",
            "recorded_at": self.created_at.isoformat(),
        }


def record_deviation(*, stage: str, kind: str, subject: str, rule: str, reason: str, by=None):
    """Record one deviation; a blank reason is refused (the manifest must say why)."""
    reason = (reason or "").strip()
    if not reason:
        raise ValueError(f"A deviation from the protocol ({rule}) needs a reason.")
    return ProtocolDeviation.objects.create(
        stage=stage,
        kind=kind,
        subject=subject[:300],
        rule=rule[:300],
        reason=reason,
        recorded_by=by,
    )


def deviations_for_manifest() -> list[dict]:
    """Every recorded deviation, oldest first, as the export manifest lists them."""
    return [d.as_manifest_row() for d in ProtocolDeviation.objects.select_related("recorded_by")]
