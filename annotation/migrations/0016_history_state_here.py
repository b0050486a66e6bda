"""The historical models of annotation's decision history: their state
moves here from heartbench_site, whose migrations first created the tables. The tables
stay as they are (nothing touches the database); heartbench_site's
0016_history_state_moved drops the models from its own state."""

import django.core.validators
import django.db.models.deletion
import simple_history.models
import uuid
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("heartbench_site", "0015_historicalbaselinestudy_pay_text"),
        ("annotation", "0015_plain_stage_and_design_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalChangeRequest",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "field",
                            models.CharField(
                                choices=[
                                    ("construction_label", "Construction label"),
                                    ("occupation", "Occupation"),
                                    ("big_five", "Big Five vector"),
                                    ("description", "Description"),
                                    ("self_value_logic", "Self-value logic"),
                                    ("core_pattern_1", "Core pattern 1"),
                                    ("core_pattern_2", "Core pattern 2"),
                                    ("core_pattern_3", "Core pattern 3"),
                                    ("core_pattern_4", "Core pattern 4"),
                                    ("core_pattern_5", "Core pattern 5"),
                                    ("core_pattern_6", "Core pattern 6"),
                                    ("core_pattern_7", "Core pattern 7"),
                                    ("core_pattern_8", "Core pattern 8"),
                                ],
                                max_length=32,
                            ),
                        ),
                        (
                            "passage",
                            models.TextField(
                                help_text="The passage of the field the request is about."
                            ),
                        ),
                        ("concern", models.TextField()),
                        ("suggested_correction", models.TextField()),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("open", "Open"),
                                    ("accepted", "Accepted"),
                                    ("rejected", "Rejected"),
                                ],
                                default="open",
                                max_length=10,
                            ),
                        ),
                        ("resolution_reason", models.TextField(blank=True)),
                        ("resolved_at", models.DateTimeField(blank=True, null=True)),
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
                            "resolved_by",
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
                            "resolved_in_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
                            ),
                        ),
                        (
                            "review",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profilereview",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical change request",
                        "verbose_name_plural": "historical change requests",
                        "db_table": "history_annotation_changerequest",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalComparisonJudgment",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "suitability",
                            models.CharField(
                                choices=[
                                    ("suitable", "Suitable"),
                                    ("flagged", "Flag for arbitration"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("suitability_reason", models.TextField(blank=True)),
                        ("persona_consistency_note", models.TextField(blank=True)),
                        ("memory_grounding_note", models.TextField(blank=True)),
                        ("situational_fit_note", models.TextField(blank=True)),
                        ("psychological_plausibility_note", models.TextField(blank=True)),
                        (
                            "selected_letter",
                            models.CharField(
                                choices=[("A", "A"), ("B", "B"), ("C", "C")], max_length=1
                            ),
                        ),
                        (
                            "rating",
                            models.CharField(
                                choices=[
                                    ("as_is", "Acceptable as-is"),
                                    ("partial", "Acceptable with partial revisions"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("selection_rationale", models.TextField()),
                        ("revision_guidance", models.TextField(blank=True)),
                        ("version", models.PositiveIntegerField(default=1)),
                        ("submitted_at", models.DateTimeField()),
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
                            "assignment",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.pairassignment",
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
                            "selected_candidate",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.candidate",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical comparison judgment",
                        "verbose_name_plural": "historical comparison judgments",
                        "db_table": "history_annotation_comparisonjudgment",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalDiamondsRating",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "duty",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "intellect",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "adversity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "mating",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "positivity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "negativity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "deception",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "sociality",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        ("submitted_at", models.DateTimeField(blank=True, editable=False)),
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
                            "review",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioreview",
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
                            "version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical diamonds rating",
                        "verbose_name_plural": "historical diamonds ratings",
                        "db_table": "history_annotation_diamondsrating",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalFinalDiamondsRating",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "duty",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "intellect",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "adversity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "mating",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "positivity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "negativity",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "deception",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "sociality",
                            models.PositiveSmallIntegerField(
                                validators=[
                                    django.core.validators.MinValueValidator(1),
                                    django.core.validators.MaxValueValidator(7),
                                ]
                            ),
                        ),
                        (
                            "reassessed",
                            models.JSONField(
                                default=list, help_text="Dimensions jointly re-assessed."
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        ("recorded_at", models.DateTimeField(blank=True, editable=False)),
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
                            "proposal",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                help_text="The confirmed proposal of a joint re-assessment.",
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.reassessmentproposal",
                            ),
                        ),
                        (
                            "recorded_by",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                help_text="The second rater; after a re-assessment, the reviewer who confirmed it.",
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "review",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioreview",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical final diamonds rating",
                        "verbose_name_plural": "historical final diamonds ratings",
                        "db_table": "history_annotation_finaldiamondsrating",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalMemoryPlan",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("initial", "Initial allocation"),
                                    ("top_up", "Top-up after the audit"),
                                ],
                                default="initial",
                                max_length=16,
                            ),
                        ),
                        ("target", models.PositiveIntegerField(default=1000)),
                        (
                            "accepted",
                            models.PositiveIntegerField(
                                help_text="k: accepted memories when planned."
                            ),
                        ),
                        (
                            "existing",
                            models.JSONField(help_text="Accepted memories per segment (45)."),
                        ),
                        (
                            "quotas",
                            models.JSONField(help_text="Memories to generate per segment (45)."),
                        ),
                        (
                            "audit_run_id",
                            models.PositiveIntegerField(
                                blank=True,
                                help_text="The finalized audit run the accepted count came from.",
                                null=True,
                            ),
                        ),
                        ("note", models.CharField(blank=True, max_length=300)),
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
                            "previous",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.memoryplan",
                            ),
                        ),
                        (
                            "profile_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
                            ),
                        ),
                        (
                            "weights",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.quotaweights",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical memory plan",
                        "verbose_name_plural": "historical memory plans",
                        "db_table": "history_annotation_memoryplan",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalPairAssignment",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "public_id",
                            models.UUIDField(db_index=True, default=uuid.uuid4, editable=False),
                        ),
                        ("permutation", models.JSONField()),
                        ("batch", models.PositiveIntegerField(default=1)),
                        ("assigned_at", models.DateTimeField(blank=True, editable=False)),
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
                            "annotator",
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
                            "assigned_by",
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
                            "pair",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.comparisonpair",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical pair assignment",
                        "verbose_name_plural": "historical pair assignments",
                        "db_table": "history_annotation_pairassignment",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalProfileEdit",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        ("anchor_change_confirmed", models.BooleanField(default=False)),
                        (
                            "diff",
                            models.JSONField(
                                help_text="Field-level diff: [{field, label, before, after, ops}]."
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
                            "case",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profilereviewcase",
                            ),
                        ),
                        (
                            "editor",
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
                            "from_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
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
                            "to_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical profile edit",
                        "verbose_name_plural": "historical profile edits",
                        "db_table": "history_annotation_profileedit",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalProfileReview",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "recommendation",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("accept", "Acceptable as-is"),
                                    ("local_revision", "Local revision needed"),
                                    ("flag", "Flag for further adjudication"),
                                ],
                                max_length=16,
                            ),
                        ),
                        (
                            "trait_alignment",
                            models.CharField(
                                blank=True,
                                choices=[("meets", "Meets the criterion"), ("concern", "Concern")],
                                max_length=8,
                            ),
                        ),
                        (
                            "internal_coherence",
                            models.CharField(
                                blank=True,
                                choices=[("meets", "Meets the criterion"), ("concern", "Concern")],
                                max_length=8,
                            ),
                        ),
                        (
                            "occupational_plausibility",
                            models.CharField(
                                blank=True,
                                choices=[("meets", "Meets the criterion"), ("concern", "Concern")],
                                max_length=8,
                            ),
                        ),
                        (
                            "behavioral_specificity",
                            models.CharField(
                                blank=True,
                                choices=[("meets", "Meets the criterion"), ("concern", "Concern")],
                                max_length=8,
                            ),
                        ),
                        (
                            "interpretive_restraint",
                            models.CharField(
                                blank=True,
                                choices=[("meets", "Meets the criterion"), ("concern", "Concern")],
                                max_length=8,
                            ),
                        ),
                        ("explanation", models.TextField(blank=True)),
                        ("unresolved_concern", models.TextField(blank=True)),
                        ("missing_information", models.TextField(blank=True)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("submitted_at", models.DateTimeField(blank=True, null=True)),
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
                                to="annotation.profilereviewcase",
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
                    ],
                    options={
                        "verbose_name": "historical profile review",
                        "verbose_name_plural": "historical profile reviews",
                        "db_table": "history_annotation_profilereview",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalProfileReviewCase",
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
                                    ("reviewing", "With the reviewers"),
                                    ("adjudicating", "Awaiting the senior expert"),
                                    ("frozen", "Frozen"),
                                ],
                                default="reviewing",
                                max_length=16,
                            ),
                        ),
                        ("suitability_note", models.TextField(blank=True)),
                        ("frozen_at", models.DateTimeField(blank=True, null=True)),
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
                            "final_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
                            ),
                        ),
                        (
                            "frozen_by",
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
                            "reviewed_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.profileversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical profile review case",
                        "verbose_name_plural": "historical profile review cases",
                        "db_table": "history_annotation_profilereviewcase",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalProfileVersion",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField()),
                        (
                            "construction_label",
                            models.CharField(
                                help_text="Descriptive archetype label (name); withheld from evaluation.",
                                max_length=200,
                            ),
                        ),
                        ("occupation", models.CharField(max_length=300)),
                        (
                            "openness",
                            models.FloatField(
                                validators=[
                                    django.core.validators.MinValueValidator(0.0),
                                    django.core.validators.MaxValueValidator(1.0),
                                ]
                            ),
                        ),
                        (
                            "conscientiousness",
                            models.FloatField(
                                validators=[
                                    django.core.validators.MinValueValidator(0.0),
                                    django.core.validators.MaxValueValidator(1.0),
                                ]
                            ),
                        ),
                        (
                            "extraversion",
                            models.FloatField(
                                validators=[
                                    django.core.validators.MinValueValidator(0.0),
                                    django.core.validators.MaxValueValidator(1.0),
                                ]
                            ),
                        ),
                        (
                            "agreeableness",
                            models.FloatField(
                                validators=[
                                    django.core.validators.MinValueValidator(0.0),
                                    django.core.validators.MaxValueValidator(1.0),
                                ]
                            ),
                        ),
                        (
                            "neuroticism",
                            models.FloatField(
                                validators=[
                                    django.core.validators.MinValueValidator(0.0),
                                    django.core.validators.MaxValueValidator(1.0),
                                ]
                            ),
                        ),
                        ("description", models.TextField()),
                        ("self_value_logic", models.TextField()),
                        (
                            "core_patterns",
                            models.JSONField(help_text="Exactly eight core behavioral patterns."),
                        ),
                        (
                            "is_demo_standin",
                            models.BooleanField(
                                default=False,
                                help_text="Written for the demo; not the authors' profile.",
                            ),
                        ),
                        ("source", models.CharField(blank=True, max_length=300)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("frozen_at", models.DateTimeField(blank=True, null=True)),
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
                            "frozen_by",
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
                        "verbose_name": "historical profile version",
                        "verbose_name_plural": "historical profile versions",
                        "db_table": "history_annotation_profileversion",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalQuotaWeights",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField(db_index=True)),
                        (
                            "weights",
                            models.JSONField(help_text="45 weights ≥ 0, one per age from 6 to 50."),
                        ),
                        ("note", models.CharField(blank=True, max_length=300)),
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
                        "verbose_name": "historical quota weights",
                        "verbose_name_plural": "historical quota weights",
                        "db_table": "history_annotation_quotaweights",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalScenarioReview",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "stage",
                            models.CharField(
                                choices=[
                                    ("screening", "Pass 1: joint screening"),
                                    ("revision", "Pass 1: flagged, awaiting a consensus revision"),
                                    ("rating", "Pass 2: independent DIAMONDS rating"),
                                    ("reassessment", "Pass 2: joint re-assessment"),
                                    ("complete", "Reviewed"),
                                ],
                                default="screening",
                                max_length=16,
                            ),
                        ),
                        ("screened_at", models.DateTimeField(blank=True, null=True)),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
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
                            "scenario",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenario",
                            ),
                        ),
                        (
                            "version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                help_text="The version under screening, or (from pass 2 on) the approved one.",
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical scenario review",
                        "verbose_name_plural": "historical scenario reviews",
                        "db_table": "history_annotation_scenarioreview",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalScreeningDecision",
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
                                choices=[("approve", "Approve"), ("flag", "Flag for revision")],
                                max_length=8,
                            ),
                        ),
                        ("logically_consistent", models.BooleanField(default=False)),
                        ("psychologically_plausible", models.BooleanField(default=False)),
                        ("character_agnostic", models.BooleanField(default=False)),
                        ("note", models.TextField(blank=True)),
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
                            "review",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioreview",
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
                            "version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.scenarioversion",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical screening decision",
                        "verbose_name_plural": "historical screening decisions",
                        "db_table": "history_annotation_screeningdecision",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]
