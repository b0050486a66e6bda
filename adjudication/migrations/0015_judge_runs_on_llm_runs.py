"""Judge runs move onto the one LLM-run framework (issue #33).

A judge run takes the framework's states: draft becomes pending, queued becomes running,
failed becomes finished_with_failures (the others keep their names). A judge call
becomes a unit of its run, and each model call it made becomes a ``JudgeCallRecord``:
every call that was sent (it has a request, an answer or an error) gets one record with
its request, answer, tokens, time and error; the call keeps its status, attempts, error
and tokens (now the totals of its records), and loses the columns the record took over.

Backwards, the states take their old names again (a cancelling run counts as cancelled)
and each call gets back the columns of its latest record.
"""

import hashlib
import json

import django.db.models.deletion
import django.utils.timezone
from decimal import Decimal
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce

# Old state → framework state, and back.
FORWARD = {"draft": "pending", "queued": "running", "failed": "finished_with_failures"}
BACKWARD = {"pending": "draft", "cancelling": "cancelled", "finished_with_failures": "failed"}


def _rename_states(apps, mapping):
    JudgeRun = apps.get_model("adjudication", "JudgeRun")
    for old, new in mapping.items():
        JudgeRun.objects.filter(status=old).update(status=new)


def states_forward(apps, schema_editor):
    _rename_states(apps, FORWARD)


def states_backward(apps, schema_editor):
    _rename_states(apps, BACKWARD)


def _prompt_hash(request: dict) -> str:
    # As llm.prompt_hash computes it (kept here so this migration never changes).
    payload = json.dumps(
        {
            "system": request.get("system", ""),
            "user": request.get("user", ""),
            "schema": request.get("schema"),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _parsed(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def calls_to_records(apps, schema_editor):
    JudgeCall = apps.get_model("adjudication", "JudgeCall")
    JudgeCallRecord = apps.get_model("adjudication", "JudgeCallRecord")
    sent = (
        JudgeCall.objects.exclude(request={}, response_text="", error_message="")
        .select_related("run")
        .order_by("pk")
    )
    batch = []
    for call in sent.iterator(chunk_size=500):
        request = call.request or {}
        ok = call.status == "succeeded"
        batch.append(
            JudgeCallRecord(
                call_id=call.pk,
                provider=str(request.get("provider") or call.run.provider_family)[:40],
                model=str(request.get("model") or call.run.model)[:200],
                prompt_hash=_prompt_hash(request),
                request=request,
                raw_response=call.response_text,
                parsed=_parsed(call.response_text) if ok else None,
                ok=ok,
                tokens_in=call.tokens_in,
                tokens_out=call.tokens_out,
                latency_s=call.latency_s,
                error_kind=call.error_kind,
                error_message=call.error_message,
                details={"moved_from": "the judge call's own columns"},
            )
        )
        if len(batch) >= 500:
            JudgeCallRecord.objects.bulk_create(batch)
            batch = []
    JudgeCallRecord.objects.bulk_create(batch)
    # A record is dated when its call ended (or began); created_at is set on insert.
    call = JudgeCall.objects.filter(pk=OuterRef("call_id"))
    JudgeCallRecord.objects.update(
        created_at=Coalesce(
            Subquery(call.values("finished_at")[:1]),
            Subquery(call.values("started_at")[:1]),
            "created_at",
        )
    )


def records_to_calls(apps, schema_editor):
    JudgeCall = apps.get_model("adjudication", "JudgeCall")
    JudgeCallRecord = apps.get_model("adjudication", "JudgeCallRecord")
    latest = {}
    for record in JudgeCallRecord.objects.order_by("call_id", "created_at", "pk").iterator(
        chunk_size=500
    ):
        latest[record.call_id] = record
    for call_id, record in latest.items():
        JudgeCall.objects.filter(pk=call_id).update(
            request=record.request,
            response_text=record.raw_response,
            tokens_in=record.tokens_in,
            tokens_out=record.tokens_out,
            latency_s=record.latency_s,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("adjudication", "0014_mcq_screening_open_per_version"),
    ]

    operations = [
        migrations.AlterField(
            model_name="judgerun",
            name="status",
            field=models.CharField(
                choices=[
                    ("pending", "Not started"),
                    ("running", "Running"),
                    ("cancelling", "Cancelling"),
                    ("cancelled", "Cancelled"),
                    ("finished", "Finished"),
                    ("finished_with_failures", "Finished with failures"),
                ],
                default="pending",
                max_length=32,
            ),
        ),
        migrations.RunPython(states_forward, states_backward),
        migrations.RenameField(model_name="judgecall", old_name="error", new_name="error_message"),
        migrations.AddField(
            model_name="judgecall",
            name="cost_usd",
            field=models.DecimalField(decimal_places=6, default=Decimal("0"), max_digits=12),
        ),
        migrations.AddField(
            model_name="judgecall",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="judgecall",
            name="tokens_in",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="judgecall",
            name="tokens_out",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="JudgeCallRecord",
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
                    "call",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="records",
                        to="adjudication.judgecall",
                    ),
                ),
            ],
            options={
                "ordering": ["call", "created_at", "pk"],
            },
        ),
        migrations.RunPython(calls_to_records, records_to_calls),
        migrations.RemoveField(model_name="judgecall", name="latency_s"),
        migrations.RemoveField(model_name="judgecall", name="request"),
        migrations.RemoveField(model_name="judgecall", name="response_text"),
    ]
