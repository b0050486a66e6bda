"""Export jobs (issue #23): an export is built by a Celery worker, stored under
``settings.EXPORT_ROOT`` with its size and SHA-256, and listed with who asked for it
and when, so it can be downloaded again."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class ExportJob(models.Model):
    class Kind(models.TextChoices):
        FINAL_SET = "final_set", "Final MCQ set"
        STATISTICS = "statistics", "Statistics tables"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.FINAL_SET)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # Progress: ``done`` of ``total`` steps, ``step`` names the one under way.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    step = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The stored zip, relative to settings.EXPORT_ROOT.
    file_name = models.CharField(max_length=200, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # One build of a kind at a time: starting another returns the running one.
            models.UniqueConstraint(
                fields=["kind"],
                condition=Q(status__in=["queued", "running"]),
                name="one_active_export_job_per_kind",
            )
        ]

    def __str__(self):
        return f"export job {self.pk} ({self.kind}, {self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def percent(self) -> int:
        if self.status == self.Status.FINISHED:
            return 100
        return round(100 * self.done / self.total) if self.total else 0
