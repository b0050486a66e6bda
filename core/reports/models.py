"""The stored result of a statistics report, with the identity of the inputs it used."""

from django.db import models


class ReportStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class StoredReport(models.Model):
    """One report instance: ``kind`` names the computation, ``key`` its arguments.

    ``result`` and ``fingerprint`` are the last finished computation and the inputs it
    read; ``wanted_fingerprint`` is the inputs of the computation queued or running now
    (so a page asking again does not queue it twice). A failed computation keeps the
    previous result."""

    kind = models.CharField(max_length=80)
    key = models.CharField(max_length=200, blank=True)
    status = models.CharField(
        max_length=16, choices=ReportStatus.choices, default=ReportStatus.PENDING
    )
    fingerprint = models.CharField(max_length=64, blank=True)
    wanted_fingerprint = models.CharField(max_length=64, blank=True)
    inputs = models.TextField(blank=True, help_text="The inputs of the stored result, in words.")
    result = models.JSONField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="stored_report_kind_key"),
        ]

    def __str__(self):
        return f"{self.kind} [{self.key}] ({self.status})"
