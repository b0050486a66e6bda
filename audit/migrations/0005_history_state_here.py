"""The historical models of audit's decision history: their state
moves here from heartbench_site, whose migrations first created the tables. The tables
stay as they are (nothing touches the database); heartbench_site's
0016_history_state_moved drops the models from its own state."""

import django.db.models.deletion
import simple_history.models
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("heartbench_site", "0015_historicalbaselinestudy_pay_text"),
        ("adjudication", "0011_history_state_here"),
        ("annotation", "0016_history_state_here"),
        ("audit", "0004_memory_case_review_rounds"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalAuditSettings",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField(db_index=True)),
                        ("note", models.CharField(blank=True, max_length=300)),
                        (
                            "omniscient_patterns",
                            models.JSONField(
                                help_text="Criterion 1: post-hoc or future markers (App. L.3 forbidden expressions)."
                            ),
                        ),
                        (
                            "adult_evaluation_patterns",
                            models.JSONField(
                                help_text="Criterion 2: adult-level retrospective phrases."
                            ),
                        ),
                        ("adult_evaluation_max_age", models.PositiveSmallIntegerField(default=12)),
                        (
                            "psychoanalytic_terms",
                            models.JSONField(help_text="Criterion 6: high-register terms."),
                        ),
                        ("low_intensity_threshold", models.FloatField(default=0.4)),
                        ("context_words_min", models.PositiveSmallIntegerField(default=15)),
                        ("context_words_max", models.PositiveSmallIntegerField(default=30)),
                        ("summary_words_min", models.PositiveSmallIntegerField(default=20)),
                        ("summary_words_max", models.PositiveSmallIntegerField(default=40)),
                        ("duplicate_threshold", models.FloatField(default=0.85)),
                        (
                            "age_windows",
                            models.JSONField(
                                help_text='Criterion 4 windows: [{"key", "first_age", "last_age"}, ...].'
                            ),
                        ),
                        ("length_max_chars", models.PositiveIntegerField(default=10000)),
                        ("guided_min_chars", models.PositiveIntegerField(default=2000)),
                        ("guided_max_chars", models.PositiveIntegerField(default=4500)),
                        ("max_repair_attempts", models.PositiveSmallIntegerField(default=3)),
                        ("enabled_criteria", models.JSONField(default=list)),
                        (
                            "narrator_labels",
                            models.JSONField(
                                default=dict,
                                help_text="Sanitation: gendered label → gender-neutral label.",
                            ),
                        ),
                        (
                            "character_names",
                            models.JSONField(
                                blank=True,
                                default=dict,
                                help_text='Sanitation: {"CHAR_01": ["name", ...]} to remove.',
                            ),
                        ),
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
                    ],
                    options={
                        "verbose_name": "historical audit settings",
                        "verbose_name_plural": "historical audit settings",
                        "db_table": "history_audit_auditsettings",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalLabelAdjudication",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "decision",
                            models.CharField(
                                choices=[
                                    ("usable_as_is", "Usable as-is: keep the item and its key"),
                                    (
                                        "wording_edit",
                                        "Wording edit: revise option texts, keep the key",
                                    ),
                                    ("key_change", "Key change: another option is the reference"),
                                    ("removal", "Removal: take the item out of the final set"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        (
                            "new_key",
                            models.CharField(
                                blank=True,
                                choices=[("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")],
                                max_length=1,
                            ),
                        ),
                        ("decided_at", models.DateTimeField(blank=True, editable=False)),
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
                            "adjudicator",
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
                            "audit_item",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="audit.labelaudititem",
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
                            "result_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.mcqitemversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical label adjudication",
                        "verbose_name_plural": "historical label adjudications",
                        "db_table": "history_audit_labeladjudication",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalLabelAudit",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("note", models.CharField(blank=True, max_length=300)),
                        (
                            "seed",
                            models.BigIntegerField(
                                help_text="The sampling seed, recorded so the draw reproduces."
                            ),
                        ),
                        ("items_per_stratum", models.PositiveSmallIntegerField(default=2)),
                        ("sample_report", models.JSONField(blank=True, default=dict)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("selecting", "Experts selecting"),
                                    ("complete", "Complete"),
                                ],
                                default="selecting",
                                max_length=16,
                            ),
                        ),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
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
                            "adjudicator",
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
                    ],
                    options={
                        "verbose_name": "historical label audit",
                        "verbose_name_plural": "historical label audits",
                        "db_table": "history_audit_labelaudit",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalLabelAuditExpert",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("position", models.PositiveSmallIntegerField()),
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
                            "audit",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="audit.labelaudit",
                            ),
                        ),
                        (
                            "expert",
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
                    ],
                    options={
                        "verbose_name": "historical label audit expert",
                        "verbose_name_plural": "historical label audit experts",
                        "db_table": "history_audit_labelauditexpert",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalLabelSelection",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "choice",
                            models.CharField(
                                blank=True,
                                choices=[("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")],
                                max_length=1,
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        ("submitted_at", models.DateTimeField(blank=True, null=True)),
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
                            "audit_item",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="audit.labelaudititem",
                            ),
                        ),
                        (
                            "expert",
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
                    ],
                    options={
                        "verbose_name": "historical label selection",
                        "verbose_name_plural": "historical label selections",
                        "db_table": "history_audit_labelselection",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalMemoryCase",
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
                                    ("repairing", "Automated repair"),
                                    ("repaired", "Passed after automated rewriting"),
                                    ("review", "Awaiting memory reviewer"),
                                    ("senior", "Confirmed: awaiting the senior expert's edit"),
                                    ("revised", "Revised by the senior expert"),
                                    ("false_positive", "Accepted as false positive"),
                                ],
                                db_index=True,
                                default="repairing",
                                max_length=16,
                            ),
                        ),
                        ("initial_criteria", models.JSONField(default=list)),
                        ("repair_note", models.CharField(blank=True, max_length=300)),
                        (
                            "decision",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("confirmed", "Confirm the defect"),
                                    (
                                        "false_positive",
                                        "False positive: accept the memory as it is",
                                    ),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("decision_reason", models.TextField(blank=True)),
                        ("decided_at", models.DateTimeField(blank=True, null=True)),
                        ("escalated", models.BooleanField(default=False)),
                        (
                            "review_round",
                            models.PositiveSmallIntegerField(
                                default=1,
                                help_text="1 for the first review; one more each time the senior expert sends an edit the re-audit keeps flagging back to the reviewing team (App. B.6).",
                            ),
                        ),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
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
                            "character",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.character",
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
                            "memory",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.memory",
                            ),
                        ),
                        (
                            "reviewer",
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
                            "run",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="audit.auditrun",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical memory case",
                        "verbose_name_plural": "historical memory cases",
                        "db_table": "history_audit_memorycase",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalMemoryFlag",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "criterion",
                            models.PositiveSmallIntegerField(
                                choices=[
                                    (1, "1. Perspective drift (omniscient narrator)"),
                                    (2, "2. Perspective drift (adult evaluation)"),
                                    (3, "3. Field-length inversion"),
                                    (4, "4. Semantic duplication"),
                                    (5, "5. Length violation"),
                                    (6, "6. Schema-vocabulary inflation"),
                                ]
                            ),
                        ),
                        ("field", models.CharField(max_length=32)),
                        ("detail", models.CharField(max_length=500)),
                        (
                            "spans",
                            models.JSONField(
                                default=list, help_text='[{"field", "start", "end", "text"}]'
                            ),
                        ),
                        ("related_memory_id", models.CharField(blank=True, max_length=64)),
                        ("score", models.FloatField(blank=True, null=True)),
                        (
                            "audit_pass",
                            models.CharField(
                                help_text='"initial", "repair 2", "senior edit 1"', max_length=40
                            ),
                        ),
                        (
                            "source",
                            models.CharField(
                                choices=[
                                    ("pattern", "Pattern and TF-IDF checks"),
                                    ("classifier", "LLM classifier"),
                                ],
                                default="pattern",
                                max_length=16,
                            ),
                        ),
                        ("current", models.BooleanField(default=True)),
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
                            "case",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="audit.memorycase",
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
                    ],
                    options={
                        "verbose_name": "historical memory flag",
                        "verbose_name_plural": "historical memory flags",
                        "db_table": "history_audit_memoryflag",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]
