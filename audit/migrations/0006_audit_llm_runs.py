"""The memory audit moves onto the one LLM-run framework (issue #33), schema part one:
the run's status column takes the longer ``RunStatus`` names, and two tables appear,
``AuditUnit`` (one character's audit within a run) and ``AuditCall`` (one classifier or
repair call). The classifier results and repair attempts gain a ``call_record`` link;
their JSON ``call`` column stays until migration 0007 has copied it."""

from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models

RUN_STATUS_CHOICES = [
    ("pending", "Not started"),
    ("running", "Running"),
    ("cancelling", "Cancelling"),
    ("cancelled", "Cancelled"),
    ("finished", "Finished"),
    ("finished_with_failures", "Finished with failures"),
]


def call_link():
    return models.ForeignKey(
        blank=True,
        null=True,
        on_delete=django.db.models.deletion.SET_NULL,
        related_name="+",
        to="audit.auditcall",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0016_history_state_here"),
        ("audit", "0005_history_state_here"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditrun",
            name="status",
            field=models.CharField(choices=RUN_STATUS_CHOICES, default="pending", max_length=32),
        ),
        migrations.CreateModel(
            name="AuditCall",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("provider", models.CharField(max_length=40)),
                ("model", models.CharField(max_length=200)),
                ("raw_response", models.TextField(blank=True)),
                ("parsed", models.JSONField(blank=True, null=True)),
                ("ok", models.BooleanField()),
                ("tokens_in", models.PositiveIntegerField(default=0)),
                ("tokens_out", models.PositiveIntegerField(default=0)),
                ("latency_s", models.FloatField(default=0.0)),
                ("error_kind", models.CharField(blank=True, max_length=40)),
                ("error_message", models.TextField(blank=True)),
                ("details", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("prompt_hash", models.CharField(max_length=64)),
                ("request", models.JSONField(default=dict)),
                ("attempt_count", models.PositiveIntegerField(default=0)),
                (
                    "kind",
                    models.CharField(
                        choices=[("classifier", "Classifier"), ("repair", "Repair")],
                        max_length=16,
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="calls",
                        to="audit.auditrun",
                    ),
                ),
            ],
            options={"ordering": ["pk"]},
        ),
        migrations.AddField(model_name="classifierresult", name="call_record", field=call_link()),
        migrations.AddField(model_name="repairattempt", name="call_record", field=call_link()),
        migrations.CreateModel(
            name="AuditUnit",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tokens_in", models.PositiveBigIntegerField(default=0)),
                ("tokens_out", models.PositiveBigIntegerField(default=0)),
                (
                    "cost_usd",
                    models.DecimalField(decimal_places=6, default=Decimal("0"), max_digits=12),
                ),
                (
                    "attempts",
                    models.PositiveIntegerField(default=0, help_text="Times a worker took it up."),
                ),
                ("error_kind", models.CharField(blank=True, max_length=40)),
                ("error_message", models.TextField(blank=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting"),
                            ("running", "Auditing"),
                            ("done", "Audited"),
                            ("failed", "Failed"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("memory_count", models.PositiveIntegerField(default=0)),
                ("length_report", models.JSONField(blank=True, default=dict)),
                (
                    "character",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="annotation.character",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="units",
                        to="audit.auditrun",
                    ),
                ),
            ],
            options={
                "ordering": ["run", "character__key"],
                "constraints": [
                    models.UniqueConstraint(fields=("run", "character"), name="audit_unit_unique")
                ],
            },
        ),
    ]
