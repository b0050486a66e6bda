"""FormDraft and ProtocolDeviation (declared in core): their state
moves here from heartbench_site, whose migrations first created the tables. The tables
stay as they are (nothing touches the database); heartbench_site's
0016_history_state_moved drops the models from its own state."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("heartbench_site", "0015_historicalbaselinestudy_pay_text"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ProtocolDeviation",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "stage",
                            models.CharField(
                                help_text="The pipeline stage, e.g. 'generation'.", max_length=40
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("gate_override", "Stage gate overridden"),
                                    (
                                        "unaudited_memories",
                                        "Memories used without a finalized audit",
                                    ),
                                    ("setting", "Setting away from the paper's protocol"),
                                ],
                                max_length=24,
                            ),
                        ),
                        (
                            "subject",
                            models.CharField(
                                help_text="What it applies to, e.g. 'CHAR_01 × scenario 4'.",
                                max_length=300,
                            ),
                        ),
                        (
                            "rule",
                            models.CharField(
                                help_text="The rule that was not held.", max_length=300
                            ),
                        ),
                        ("reason", models.TextField(help_text="Why, in the admin's words.")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "recorded_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "heartbench_site_protocoldeviation",
                        "ordering": ["created_at", "pk"],
                    },
                ),
                migrations.CreateModel(
                    name="FormDraft",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "key",
                            models.CharField(
                                help_text="The form and its object, e.g. 'profile-review:CHAR_01'.",
                                max_length=200,
                            ),
                        ),
                        (
                            "data",
                            models.JSONField(
                                default=dict, help_text="Field name → value (a list when several)."
                            ),
                        ),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "heartbench_site_formdraft",
                        "ordering": ["-updated_at", "pk"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "key"), name="form_draft_one_per_user_and_key"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
