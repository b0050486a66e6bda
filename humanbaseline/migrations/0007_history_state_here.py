"""The historical models of humanbaseline's decision history: their state
moves here from heartbench_site, whose migrations first created the tables. The tables
stay as they are (nothing touches the database); heartbench_site's
0016_history_state_moved drops the models from its own state."""

import django.db.models.deletion
import simple_history.models
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("heartbench_site", "0015_historicalbaselinestudy_pay_text"),
        ("adjudication", "0011_history_state_here"),
        ("humanbaseline", "0006_study_reading_and_pay"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalBaselineStudy",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=200)),
                        ("consent_version", models.CharField(max_length=40)),
                        ("consent_text", models.TextField()),
                        ("briefing", models.TextField()),
                        ("pay_text", models.CharField(blank=True, max_length=500)),
                        (
                            "status",
                            models.CharField(
                                choices=[("open", "Open"), ("closed", "Closed")],
                                default="open",
                                max_length=16,
                            ),
                        ),
                        (
                            "invitation_token",
                            models.UUIDField(db_index=True, default=uuid.uuid4, editable=False),
                        ),
                        ("retrieval_method", models.CharField(max_length=16)),
                        ("k", models.PositiveSmallIntegerField()),
                        ("completion_code", models.CharField(blank=True, max_length=64)),
                        ("completion_url", models.CharField(blank=True, max_length=500)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("history_id", models.AutoField(primary_key=True, serialize=False)),
                        ("history_date", models.DateTimeField(db_index=True)),
                        ("history_change_reason", models.CharField(max_length=100, null=True)),
                        (
                            "history_type",
                            models.CharField(
                                choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")],
                                max_length=1,
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "history_user",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "selection",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="humanbaseline.subsetselection",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical baseline study",
                        "verbose_name_plural": "historical baseline studies",
                        "db_table": "history_humanbaseline_baselinestudy",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalItemResponse",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("position", models.PositiveSmallIntegerField()),
                        (
                            "choice",
                            models.CharField(
                                blank=True,
                                choices=[("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")],
                                max_length=1,
                            ),
                        ),
                        ("answered_at", models.DateTimeField(blank=True, null=True)),
                        ("revisions", models.PositiveIntegerField(default=0)),
                        ("seconds", models.FloatField(default=0)),
                        ("history_id", models.AutoField(primary_key=True, serialize=False)),
                        ("history_date", models.DateTimeField(db_index=True)),
                        ("history_change_reason", models.CharField(max_length=100, null=True)),
                        (
                            "history_type",
                            models.CharField(
                                choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")],
                                max_length=1,
                            ),
                        ),
                        (
                            "history_user",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "participation",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="humanbaseline.participation",
                            ),
                        ),
                        (
                            "study_item",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="humanbaseline.studyitem",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical item response",
                        "verbose_name_plural": "historical item responses",
                        "db_table": "history_humanbaseline_itemresponse",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalItemSourceFamily",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "family",
                            models.CharField(
                                choices=[
                                    ("claude", "Claude"),
                                    ("gpt", "GPT"),
                                    ("gemini", "Gemini"),
                                    ("expert_rewrite", "Expert rewrite"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("origin", models.CharField(max_length=200)),
                        ("updated_at", models.DateTimeField(blank=True, editable=False)),
                        ("history_id", models.AutoField(primary_key=True, serialize=False)),
                        ("history_date", models.DateTimeField(db_index=True)),
                        ("history_change_reason", models.CharField(max_length=100, null=True)),
                        (
                            "history_type",
                            models.CharField(
                                choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")],
                                max_length=1,
                            ),
                        ),
                        (
                            "history_user",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "item",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.mcqitem",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical item source family",
                        "verbose_name_plural": "historical item source familys",
                        "db_table": "history_humanbaseline_itemsourcefamily",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalParticipation",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("invited", "Invited"),
                                    ("declined", "Declined consent"),
                                    ("consented", "Consented"),
                                    ("started", "Answering"),
                                    ("finalized", "Finalized"),
                                ],
                                default="invited",
                                max_length=16,
                            ),
                        ),
                        ("enrolled_via", models.CharField(max_length=16)),
                        (
                            "pool",
                            models.CharField(
                                blank=True,
                                choices=[("prolific", "Prolific"), ("sona", "SONA")],
                                max_length=16,
                            ),
                        ),
                        ("pool_id", models.CharField(blank=True, max_length=64)),
                        ("pool_study_id", models.CharField(blank=True, max_length=64)),
                        ("pool_session_id", models.CharField(blank=True, max_length=64)),
                        ("consent_version", models.CharField(blank=True, max_length=40)),
                        ("consent_decided_at", models.DateTimeField(blank=True, null=True)),
                        ("briefing_done_at", models.DateTimeField(blank=True, null=True)),
                        ("practice_done_at", models.DateTimeField(blank=True, null=True)),
                        ("order_seed", models.BigIntegerField()),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finalized_at", models.DateTimeField(blank=True, null=True)),
                        ("time_counted_until", models.DateTimeField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("history_id", models.AutoField(primary_key=True, serialize=False)),
                        ("history_date", models.DateTimeField(db_index=True)),
                        ("history_change_reason", models.CharField(max_length=100, null=True)),
                        (
                            "history_type",
                            models.CharField(
                                choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")],
                                max_length=1,
                            ),
                        ),
                        (
                            "history_user",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "study",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="humanbaseline.baselinestudy",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical participation",
                        "verbose_name_plural": "historical participations",
                        "db_table": "history_humanbaseline_participation",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]
