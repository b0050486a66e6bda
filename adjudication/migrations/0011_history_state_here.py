"""The historical models of adjudication's decision history: their state
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
        ("adjudication", "0010_export_jobs"),
        ("annotation", "0016_history_state_here"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalAdjudicationSettings",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "show_family_to_arbitrator",
                            models.BooleanField(
                                default=False,
                                help_text="Show each candidate's model family on the arbitration page. Off by default: seed 000 App. D.2 hides families during annotation.",
                            ),
                        ),
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
                    ],
                    options={
                        "verbose_name": "historical adjudication settings",
                        "verbose_name_plural": "historical adjudication settings",
                        "db_table": "history_adjudication_adjudicationsettings",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalArbitrationDecision",
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
                                    ("discarded", "Discarded the pair"),
                                    ("adopted", "Adopted a candidate as-is"),
                                    ("edited", "Edited a candidate"),
                                    ("rewritten", "Rewrote the response"),
                                    ("regenerate", "Asked for regeneration"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("reason", models.TextField(blank=True)),
                        ("decided_at", models.DateTimeField(blank=True, editable=False)),
                        ("reopened_at", models.DateTimeField(blank=True, null=True)),
                        ("reopen_reason", models.TextField(blank=True)),
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
                            "arbitrator",
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
                        (
                            "reference",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.referenceresponse",
                            ),
                        ),
                        (
                            "reopened_by",
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
                            "source_candidate",
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
                        "verbose_name": "historical arbitration decision",
                        "verbose_name_plural": "historical arbitration decisions",
                        "db_table": "history_adjudication_arbitrationdecision",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalMcqItem",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("question_id", models.CharField(db_index=True, max_length=120)),
                        (
                            "stage",
                            models.CharField(
                                choices=[
                                    ("school_age", "School age"),
                                    ("adolescence", "Adolescence"),
                                    ("early_adult_transition", "Early adult transition"),
                                    ("entering_adult_world", "Entering the adult world"),
                                    ("age_30_transition", "Age-30 transition"),
                                    ("settling_down", "Settling down"),
                                    ("midlife_transition", "Midlife transition"),
                                    ("entering_midlife", "Entering middle adulthood"),
                                ],
                                max_length=32,
                            ),
                        ),
                        (
                            "correct_answer",
                            models.CharField(
                                choices=[("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")],
                                max_length=1,
                            ),
                        ),
                        ("version", models.PositiveIntegerField(default=1)),
                        ("source", models.CharField(blank=True, max_length=300)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("needs_completion", "Needs human completion"),
                                    ("screening", "Awaiting LLM screening"),
                                    ("flagged", "Flagged for item review"),
                                    ("final", "In the final set"),
                                    ("removed", "Removed"),
                                ],
                                db_default="final",
                                db_index=True,
                                default="final",
                                max_length=20,
                            ),
                        ),
                        ("seed", models.BigIntegerField(blank=True, null=True)),
                        (
                            "assembly_params",
                            models.JSONField(blank=True, db_default={}, default=dict),
                        ),
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
                            "reference",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.referenceresponse",
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
                    ],
                    options={
                        "verbose_name": "historical mcq item",
                        "verbose_name_plural": "historical mcq items",
                        "db_table": "history_adjudication_mcqitem",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalMcqReviewDecision",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "action",
                            models.CharField(
                                choices=[
                                    ("retain", "Retained as-is"),
                                    ("revise_distractor", "Revised a distractor"),
                                    ("replace_distractor", "Replaced a distractor"),
                                    ("generate_distractor", "Added a generated distractor"),
                                    ("reconsider_key", "Reconsidered the reference / key"),
                                    ("reconstruct", "Reconstructed the item"),
                                    ("remove", "Removed the item"),
                                ],
                                max_length=24,
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
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
                        (
                            "item_version",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.mcqitemversion",
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
                            "screening",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.mcqscreening",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical mcq review decision",
                        "verbose_name_plural": "historical mcq review decisions",
                        "db_table": "history_adjudication_mcqreviewdecision",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="HistoricalReferenceResponse",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("summary", models.TextField()),
                        ("emotional_tone", models.TextField(blank=True)),
                        ("core_reasoning", models.TextField(blank=True)),
                        ("value_orientation", models.TextField(blank=True)),
                        ("final_decision", models.TextField()),
                        (
                            "decision_type",
                            models.CharField(
                                choices=[
                                    ("imported", "Imported from a release"),
                                    ("unanimous", "Adopted unanimously"),
                                    ("adopted", "Adopted by the arbitrator"),
                                    ("edited", "Edited by the arbitrator"),
                                    ("rewritten", "Rewritten by the arbitrator"),
                                ],
                                max_length=16,
                            ),
                        ),
                        ("source", models.CharField(blank=True, max_length=300)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        (
                            "source_family",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("claude", "Claude"),
                                    ("gpt", "GPT"),
                                    ("gemini", "Gemini"),
                                ],
                                db_default="",
                                max_length=16,
                            ),
                        ),
                        (
                            "word_edit_rate",
                            models.FloatField(
                                blank=True,
                                help_text="Word edit rate over all text fields (rationale and final decision).",
                                null=True,
                            ),
                        ),
                        (
                            "keyed_word_edit_rate",
                            models.FloatField(
                                blank=True,
                                help_text="Word edit rate over the final decision alone: the keyed text of the MCQ.",
                                null=True,
                            ),
                        ),
                        ("superseded_at", models.DateTimeField(blank=True, null=True)),
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
                            "arbitrator",
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
                            "source_candidate",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="annotation.candidate",
                            ),
                        ),
                        (
                            "supersedes",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="adjudication.referenceresponse",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical reference response",
                        "verbose_name_plural": "historical reference responses",
                        "db_table": "history_adjudication_referenceresponse",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]
