"""Import jobs: an admin's upload, kept in the database until a Celery worker imports it."""

from django.conf import settings
from django.db import models


class ImportJob(models.Model):
    """An admin upload, imported by a Celery worker; the files travel in the database so
    a worker on another machine can read them."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Importing"
        SUCCEEDED = "succeeded", "Imported"
        FAILED = "failed", "Rejected"

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    as_new_versions = models.BooleanField(
        default=False,
        help_text=(
            "Add a changed profile that review protects as the next version for review, "
            "instead of refusing the import."
        ),
    )
    summary = models.JSONField(default=dict, blank=True)
    errors = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"import job {self.pk} ({self.status})"


class ImportJobFile(models.Model):
    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=300)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()

    def __str__(self):
        return self.name
