"""Evaluation runs move onto the one LLM-run framework (issue #33).

Run states. ``EvaluationRun.status`` takes the framework's states (``RunStatus``):
pending, running, finished and finished with failures keep their values; an imported
run, stored ``imported`` until now, becomes ``finished`` (it never ran, and every one of
its predictions is final); its ``origin`` stays ``imported``, which is what tells it
apart. Backwards, a finished run whose origin is imported is ``imported`` again, and a
cancelling or cancelled run (states that did not exist before) becomes finished with
failures, its cancelled predictions failed with the reason "cancelled", so the old
resume asks them again. The historical rows of runs (append-only) keep the state they
were written with.

Calls. A prediction was its run's unit and its one call in one row. Each prediction
that was sent to a model (it has a prompt hash or a latency) now has one
``EvaluationCall`` holding what that call gave: provider kind and model (from the run's
provider snapshot), the raw response and parsed object, its tokens, latency, error and
prompt hash; the call is dated with the prediction's last change. The prediction keeps
its tokens as its totals (``UnitCost``, cost 0: no prices were recorded), its error and
its response as graded; ``prompt_hash`` and ``latency_s`` move to the call and their
columns are dropped. Imported predictions and those refused before a call (leak check,
missing model, input error) get no call. Backwards, the columns come back and each
prediction takes them from its latest call; the calls are dropped.
"""

from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models

RUN_STATES = [
    ("pending", "Not started"),
    ("running", "Running"),
    ("cancelling", "Cancelling"),
    ("cancelled", "Cancelled"),
    ("finished", "Finished"),
    ("finished_with_failures", "Finished with failures"),
]
MOVED_NOTE = "Moved from its prediction's row by evaluation migration 0005."


def forward(apps, schema_editor):
    Run = apps.get_model("evaluation", "EvaluationRun")
    Prediction = apps.get_model("evaluation", "EvaluationPrediction")
    Call = apps.get_model("evaluation", "EvaluationCall")
    Run.objects.filter(status="imported").update(status="finished")
    called = (
        Prediction.objects.filter(models.Q(latency_s__isnull=False) | ~models.Q(prompt_hash=""))
        .select_related("run")
        .order_by("pk")
    )
    batch = []
    for p in called.iterator(chunk_size=2000):
        provider = p.run.provider or {}
        batch.append(
            Call(
                prediction_id=p.pk,
                provider=str(provider.get("kind") or "")[:40],
                model=str(provider.get("model") or "")[:200],
                raw_response=p.raw_response,
                parsed=p.parsed,
                ok=not p.error_kind,
                tokens_in=p.tokens_in,
                tokens_out=p.tokens_out,
                latency_s=p.latency_s or 0.0,
                error_kind=p.error_kind,
                error_message=p.error_message,
                details={"note": MOVED_NOTE},
                prompt_hash=p.prompt_hash,
            )
        )
        if len(batch) >= 2000:
            Call.objects.bulk_create(batch)
            batch = []
    Call.objects.bulk_create(batch)
    # auto_now_add dated the calls now; they happened when their prediction last changed.
    Call.objects.update(
        created_at=models.Subquery(
            Prediction.objects.filter(pk=models.OuterRef("prediction_id")).values("updated_at")[:1]
        )
    )


def backward(apps, schema_editor):
    Run = apps.get_model("evaluation", "EvaluationRun")
    Prediction = apps.get_model("evaluation", "EvaluationPrediction")
    Call = apps.get_model("evaluation", "EvaluationCall")
    Run.objects.filter(status="finished", origin="imported").update(status="imported")
    stopped = Run.objects.filter(status__in=["cancelling", "cancelled"])
    stopped_ids = list(stopped.values_list("pk", flat=True))
    Prediction.objects.filter(run_id__in=stopped_ids, status="cancelled").update(
        status="failed", error_kind="cancelled", error_message="Cancelled before it was asked."
    )
    Prediction.objects.filter(status="cancelled").update(status="pending")
    Run.objects.filter(pk__in=stopped_ids).update(status="finished_with_failures")
    latest = {}
    for call in Call.objects.order_by("prediction_id", "pk").iterator(chunk_size=2000):
        latest[call.prediction_id] = (call.prompt_hash, call.latency_s)
    for prediction_id, (prompt_hash, latency_s) in latest.items():
        Prediction.objects.filter(pk=prediction_id).update(
            prompt_hash=prompt_hash, latency_s=latency_s
        )


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0004_history_state_here")]

    operations = [
        migrations.CreateModel(
            name="EvaluationCall",
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
                    "prediction",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="calls",
                        to="evaluation.evaluationprediction",
                    ),
                ),
            ],
            options={"ordering": ["prediction", "pk"]},
        ),
        migrations.AddField(
            model_name="evaluationprediction",
            name="cost_usd",
            field=models.DecimalField(decimal_places=6, default=Decimal("0"), max_digits=12),
        ),
        migrations.AlterField(
            model_name="evaluationprediction",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Waiting"),
                    ("running", "Running"),
                    ("answered", "Answered"),
                    ("invalid", "Invalid or refused (incorrect)"),
                    ("leak_blocked", "Blocked by the leak check"),
                    ("failed", "Call failed"),
                    ("cancelled", "Cancelled"),
                ],
                db_index=True,
                default="pending",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="evaluationprediction",
            name="tokens_in",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="evaluationprediction",
            name="tokens_out",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="evaluationrun",
            name="status",
            field=models.CharField(choices=RUN_STATES, default="pending", max_length=32),
        ),
        migrations.AlterField(
            model_name="historicalevaluationrun",
            name="status",
            field=models.CharField(choices=RUN_STATES, default="pending", max_length=32),
        ),
        migrations.RunPython(forward, backward),
        migrations.RemoveField(model_name="evaluationprediction", name="latency_s"),
        migrations.RemoveField(model_name="evaluationprediction", name="prompt_hash"),
    ]
