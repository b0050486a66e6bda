"""The memory audit on the LLM-run framework, the data (every stored row kept).

Runs: the old "failed" state becomes "finished_with_failures" (the run ended and some of
its work did not; its ``error`` column keeps the reason). Each run gets one unit per
character it covers (its ``character_keys``, or every character): a character the run's
summary lists as audited is ``done`` with its memory count; for a failed run the others
are ``failed`` with the run's error, so "Retry failed" audits exactly them; for a
pending or running run they wait.

Calls: each non-empty ``call`` JSON of a classifier result or a repair attempt becomes an
``AuditCall`` row (provider, model, raw response, parsed output, ok, tokens, latency,
error, request, prompt hash, attempt count as columns; every other key in ``details``)
linked by ``call_record``.

Reverse: "finished_with_failures" and "cancelled" runs are "failed" again, "cancelling"
ones "running"; each ``call`` JSON is rebuilt from its row (an empty error kind or
message reads as null again, as ``CallResult`` has them on a call that succeeded)."""

from django.db import migrations

COLUMNS = (
    "provider",
    "model",
    "raw_response",
    "parsed",
    "ok",
    "tokens_in",
    "tokens_out",
    "latency_s",
    "error_kind",
    "error_message",
    "request",
    "prompt_hash",
    "attempt_count",
)
LIMITS = {"provider": 40, "model": 200, "error_kind": 40, "prompt_hash": 64}
TEXTS = ("raw_response", "error_message")


def call_row(AuditCall, *, run_id, kind, data):
    values = {}
    for name in COLUMNS:
        value = data.get(name)
        if name in LIMITS:
            value = str(value or "")[: LIMITS[name]]
        elif name in TEXTS:
            value = str(value or "")
        elif name in ("tokens_in", "tokens_out", "attempt_count"):
            value = int(value or 0)
        elif name == "latency_s":
            value = float(value or 0.0)
        elif name == "ok":
            value = bool(value)
        elif name == "request":
            value = value or {}
        values[name] = value
    details = {k: v for k, v in data.items() if k not in COLUMNS}
    return AuditCall.objects.create(run_id=run_id, kind=kind, details=details, **values)


def call_dict(call) -> dict:
    data = dict(call.details or {})
    for name in COLUMNS:
        data[name] = getattr(call, name)
    for name in ("error_kind", "error_message"):
        data[name] = data[name] or None
    return data


def units_for(apps, run):
    Character = apps.get_model("annotation", "Character")
    AuditUnit = apps.get_model("audit", "AuditUnit")
    characters = Character.objects.order_by("key")
    if run.character_keys:
        characters = characters.filter(key__in=run.character_keys)
    audited = (run.summary or {}).get("per_character") or {}
    for character in characters:
        if character.key in audited:
            status, count = "done", int(audited[character.key])
        elif run.status == "finished_with_failures":
            status, count = "failed", 0
        elif run.status == "finished":
            status, count = "done", 0
        else:
            status, count = "pending", 0
        AuditUnit.objects.create(
            run=run,
            character=character,
            status=status,
            memory_count=count,
            error_kind="error" if status == "failed" else "",
            error_message=run.error if status == "failed" else "",
        )


def forward(apps, schema_editor):
    AuditRun = apps.get_model("audit", "AuditRun")
    AuditCall = apps.get_model("audit", "AuditCall")
    AuditRun.objects.filter(status="failed").update(status="finished_with_failures")
    for run in AuditRun.objects.order_by("pk"):
        units_for(apps, run)
    for model, kind, run_path in (
        ("ClassifierResult", "classifier", "run_id"),
        ("RepairAttempt", "repair", "case__run_id"),
    ):
        Model = apps.get_model("audit", model)
        rows = (
            Model.objects.exclude(call={})
            .exclude(call__isnull=True)
            .values_list("pk", run_path, "call")
        )
        for pk, run_id, data in rows.iterator():
            call = call_row(AuditCall, run_id=run_id, kind=kind, data=data)
            Model.objects.filter(pk=pk).update(call_record=call)


def backward(apps, schema_editor):
    AuditRun = apps.get_model("audit", "AuditRun")
    AuditRun.objects.filter(status__in=["finished_with_failures", "cancelled"]).update(
        status="failed"
    )
    AuditRun.objects.filter(status="cancelling").update(status="running")
    for model in ("ClassifierResult", "RepairAttempt"):
        Model = apps.get_model("audit", model)
        for row in Model.objects.exclude(call_record=None).select_related("call_record"):
            Model.objects.filter(pk=row.pk).update(call=call_dict(row.call_record))


class Migration(migrations.Migration):
    dependencies = [("audit", "0006_audit_llm_runs")]

    operations = [migrations.RunPython(forward, backward)]
