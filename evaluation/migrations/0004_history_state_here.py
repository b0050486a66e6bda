"""The historical models of evaluation's decision history: their state
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
        ("evaluation", "0003_embedding_retriever_and_query_identity"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalEvaluationRun",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        (
                            "label",
                            models.CharField(
                                help_text="The model's name in tables and comparisons, e.g. gpt-5.4.",
                                max_length=120,
                            ),
                        ),
                        (
                            "origin",
                            models.CharField(
                                choices=[
                                    ("platform", "Run on the platform"),
                                    ("imported", "Imported predictions"),
                                ],
                                default="platform",
                                max_length=16,
                            ),
                        ),
                        (
                            "setting",
                            models.CharField(
                                choices=[
                                    ("no_retrieval", "No-Retrieval"),
                                    ("naive_rag", "Naive-RAG (k = 30)"),
                                    ("disclosed_profile", "Disclosed-Profile"),
                                    ("disclosed_profile_memory", "Disclosed-Profile + Memory"),
                                ],
                                max_length=32,
                            ),
                        ),
                        ("provider_key", models.CharField(blank=True, max_length=80)),
                        ("provider", models.JSONField(blank=True, default=dict)),
                        ("decoding", models.JSONField(blank=True, default=dict)),
                        (
                            "retrieval_method",
                            models.CharField(
                                choices=[
                                    ("bm25", "BM25 over content_full"),
                                    ("tfidf", "TF-IDF cosine over content_full"),
                                    ("embedding", "Embedding cosine over content_full"),
                                    ("imported", "Imported with an evaluation run"),
                                ],
                                default="bm25",
                                max_length=16,
                            ),
                        ),
                        (
                            "retriever",
                            models.JSONField(
                                blank=True,
                                default=dict,
                                help_text="The embedding retriever the run was created with (endpoint, model, dimensions; never the key); empty for BM25 and TF-IDF.",
                            ),
                        ),
                        ("k", models.PositiveSmallIntegerField(default=30)),
                        ("item_set", models.CharField(default="all final items", max_length=200)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("pending", "Pending"),
                                    ("running", "Running"),
                                    ("finished", "Finished"),
                                    ("finished_with_failures", "Finished with failures"),
                                    ("imported", "Imported"),
                                ],
                                default="pending",
                                max_length=32,
                            ),
                        ),
                        ("note", models.TextField(blank=True)),
                        ("source_file", models.CharField(blank=True, max_length=300)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
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
                        "verbose_name": "historical evaluation run",
                        "verbose_name_plural": "historical evaluation runs",
                        "db_table": "history_evaluation_evaluationrun",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]
