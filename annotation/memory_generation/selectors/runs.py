"""Reads of memory generation runs for the admin's pages and API (seed 000 App. B.5).

Progress is counted from the rows themselves: a slot is filled when its
``GeneratedMemory`` exists, a batch's slots are its ``slots`` list, and each batch lies
inside one life-stage bin, so per-character and per-bin totals are sums over batches.
Every function here issues a fixed number of queries whatever the number of runs,
batches, slots or calls.

Model names and prompts are shown: admin pages and endpoints only.
"""

import json
from decimal import Decimal

from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from annotation.corpus.models import Character, Memory
from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryCallRecord,
    MemoryPlan,
    MemoryRun,
)
from core.life_stages import BY_KEY, LIFE_STAGE_BINS, life_stage_for_age

ACTIVE_RUN_STATUSES = (
    MemoryRun.Status.PENDING,
    MemoryRun.Status.RUNNING,
    MemoryRun.Status.CANCELLING,
)
TERMINAL_RUN_STATUSES = (
    MemoryRun.Status.CANCELLED,
    MemoryRun.Status.FINISHED,
    MemoryRun.Status.FINISHED_WITH_FAILURES,
)
_BY_LABEL = {b.label.lower(): b.key for b in LIFE_STAGE_BINS}


def bin_key(batch_life_stage: str, first_age: int | None = None) -> str:
    """A batch's bin key, whether it stores the key ("adolescence") or the label
    ("Adolescence"); falls back to the bin of its first age."""
    if batch_life_stage in BY_KEY:
        return batch_life_stage
    key = _BY_LABEL.get((batch_life_stage or "").strip().lower())
    if key is None and first_age is not None:
        key = life_stage_for_age(first_age).key
    return key or batch_life_stage


def _count(queryset, field: str = "pk"):
    return Coalesce(
        Subquery(queryset.values(field).annotate(n=Count("pk")).values("n")[:1]),
        0,
        output_field=IntegerField(),
    )


def memory_run_list() -> QuerySet[MemoryRun]:
    """Runs, newest first, with ``batches_total``, ``batches_done`` (terminal),
    ``batches_failed`` and ``memories_stored`` (filled slots): one query."""
    batches = MemoryBatch.objects.filter(run=OuterRef("pk")).order_by().values("run")
    stored = (
        GeneratedMemory.objects.filter(batch__run=OuterRef("pk")).order_by().values("batch__run")
    )
    return (
        MemoryRun.objects.select_related("created_by", "prompt")
        .annotate(
            batches_total=_count(batches, "run"),
            batches_done=_count(batches.filter(status__in=MemoryBatch.TERMINAL), "run"),
            batches_failed=_count(batches.filter(status=MemoryBatch.Status.FAILED), "run"),
            memories_stored=_count(stored, "batch__run"),
        )
        .order_by("-created_at", "-pk")
    )


def memory_run_list_page(*, page_number, per_page: int) -> Page:
    """One page of runs; each also gets ``slots_total`` and ``characters`` (the keys its
    plans cover): two queries beyond the page's own."""
    page = Paginator(memory_run_list(), per_page).get_page(page_number)
    runs = list(page.object_list)
    ids = [run.pk for run in runs]
    slots: dict[int, int] = dict.fromkeys(ids, 0)
    for run_id, run_slots in MemoryBatch.objects.filter(run_id__in=ids).values_list(
        "run_id", "slots"
    ):
        slots[run_id] += len(run_slots or [])
    characters: dict[int, set[str]] = {run_id: set() for run_id in ids}
    for run_id, key in MemoryRun.plans.through.objects.filter(memoryrun_id__in=ids).values_list(
        "memoryrun_id", "memoryplan__character__key"
    ):
        characters[run_id].add(key)
    for run in runs:
        run.slots_total = slots[run.pk]
        run.character_keys = sorted(characters[run.pk])
    page.object_list = runs
    return page


def memory_run_get(*, run_id: int) -> MemoryRun:
    """A run with its prompt, creator and plans (each with its character)."""
    plans = Prefetch(
        "plans",
        queryset=MemoryPlan.objects.select_related("character", "profile_version", "weights"),
        to_attr="plan_list",
    )
    return get_object_or_404(
        MemoryRun.objects.select_related("created_by", "prompt").prefetch_related(plans),
        pk=run_id,
    )


def _percent(part: int, whole: int) -> int:
    return (100 * part) // whole if whole else 0


def _cell() -> dict:
    return {"filled": 0, "total": 0}


def memory_run_progress(*, run: MemoryRun) -> dict:
    """How far ``run`` is, in three queries: batches (with their slots), filled slots
    per batch, and call counts.

    ``characters``: one row per character (plan order), each with ``bins`` (one cell per
    life-stage bin: filled/total slots, ``None`` where the run asks for none), batches
    by status, tokens and cost. ``failed_batches``: every failed batch with its error.
    """
    batches = list(
        MemoryBatch.objects.filter(run=run)
        .order_by("index")
        .values(
            "pk",
            "index",
            "character__key",
            "life_stage",
            "first_age",
            "last_age",
            "slots",
            "status",
            "attempts",
            "error_kind",
            "error_message",
            "tokens_in",
            "tokens_out",
            "cost_usd",
        )
    )
    filled = dict(
        GeneratedMemory.objects.filter(batch__run=run)
        .order_by()
        .values("batch_id")
        .annotate(n=Count("pk"))
        .values_list("batch_id", "n")
    )
    calls = MemoryCallRecord.objects.filter(batch__run=run).aggregate(
        total=Count("pk"), failed=Count("pk", filter=Q(ok=False))
    )
    statuses = list(MemoryBatch.Status.values)
    rows: dict[str, dict] = {}
    for batch in batches:
        key = batch["character__key"]
        row = rows.setdefault(
            key,
            {
                "character": key,
                "bins": {b.key: _cell() for b in LIFE_STAGE_BINS},
                "batches": dict.fromkeys([*statuses, "total"], 0),
                "filled": 0,
                "total": 0,
                "tokens_in": 0,
                "tokens_out": 0,
                "cost_usd": Decimal("0"),
            },
        )
        target = len(batch["slots"] or [])
        done = filled.get(batch["pk"], 0)
        cell = row["bins"].setdefault(bin_key(batch["life_stage"], batch["first_age"]), _cell())
        cell["filled"] += done
        cell["total"] += target
        row["filled"] += done
        row["total"] += target
        row["batches"][batch["status"]] += 1
        row["batches"]["total"] += 1
        row["tokens_in"] += batch["tokens_in"]
        row["tokens_out"] += batch["tokens_out"]
        row["cost_usd"] += batch["cost_usd"]
        batch["filled"] = done
        batch["target"] = target
    # Plan order is character order; keep the page stable across polls.
    character_rows = [rows[key] for key in sorted(rows)]
    for row in character_rows:
        row["percent"] = _percent(row["filled"], row["total"])
        row["bin_cells"] = [
            {
                "bin": b.key,
                "label": b.label,
                **row["bins"][b.key],
                "percent": _percent(row["bins"][b.key]["filled"], row["bins"][b.key]["total"]),
            }
            for b in LIFE_STAGE_BINS
        ]
    by_status = {s: sum(r["batches"][s] for r in character_rows) for s in statuses}
    total_slots = sum(r["total"] for r in character_rows)
    filled_slots = sum(r["filled"] for r in character_rows)
    bin_totals = []
    for b in LIFE_STAGE_BINS:
        cell = _cell()
        for row in character_rows:
            cell["filled"] += row["bins"][b.key]["filled"]
            cell["total"] += row["bins"][b.key]["total"]
        bin_totals.append({"bin": b.key, "label": b.label, **cell})
    S = MemoryBatch.Status
    return {
        "run_id": run.pk,
        "status": run.status,
        "bins": [{"bin": b.key, "label": b.label} for b in LIFE_STAGE_BINS],
        "characters": character_rows,
        "bin_totals": bin_totals,
        "slots_total": total_slots,
        "slots_filled": filled_slots,
        "percent": _percent(filled_slots, total_slots),
        "batches_total": len(batches),
        "batches_by_status": by_status,
        "batches_done": sum(by_status[s] for s in MemoryBatch.TERMINAL),
        "batches_running": by_status[S.RUNNING],
        "batches_failed": by_status[S.FAILED],
        "tokens_in": sum(r["tokens_in"] for r in character_rows),
        "tokens_out": sum(r["tokens_out"] for r in character_rows),
        "cost_usd": sum((r["cost_usd"] for r in character_rows), Decimal("0")),
        "calls": calls["total"] or 0,
        "failed_calls": calls["failed"] or 0,
        "failed_batches": [b for b in batches if b["status"] == S.FAILED],
        "batches": batches,
    }


def memory_batch_list(*, run_id: int, status: str | None = None) -> QuerySet[MemoryBatch]:
    batches = MemoryBatch.objects.filter(run_id=run_id).select_related("character")
    if status:
        batches = batches.filter(status=status)
    return batches.annotate(filled=Count("memories")).order_by("index")


def memory_batch_get(*, run_id: int, batch_id: int) -> MemoryBatch:
    """A batch with ``call_list`` (oldest first, request and parsed output
    pretty-printed), ``memory_list`` (its GeneratedMemory rows with their memories) and
    ``slot_rows`` (each slot with its memory and calls): three queries."""
    calls = Prefetch(
        "calls",
        queryset=MemoryCallRecord.objects.order_by("created_at", "pk"),
        to_attr="call_list",
    )
    generated = Prefetch(
        "memories",
        queryset=GeneratedMemory.objects.select_related("memory", "prompt").order_by("slot"),
        to_attr="memory_list",
    )
    batch = get_object_or_404(
        MemoryBatch.objects.select_related("run", "character", "plan").prefetch_related(
            calls, generated
        ),
        run_id=run_id,
        pk=batch_id,
    )
    by_slot = {g.slot: g for g in batch.memory_list}
    calls_by_slot: dict[int, list] = {}
    for call in batch.call_list:
        call.request_json = json.dumps(call.request, indent=2, ensure_ascii=False)
        call.parsed_json = json.dumps(call.parsed, indent=2, ensure_ascii=False)
        calls_by_slot.setdefault(call.slot, []).append(call)
    batch.slot_rows = [
        {
            "slot": slot,
            "age": spec.get("age"),
            "tier": spec.get("tier"),
            "generated": by_slot.get(slot),
            "calls": len(calls_by_slot.get(slot, [])),
        }
        for slot, spec in enumerate(batch.slots or [])
    ]
    batch.filled = len(by_slot)
    return batch


def character_memories_for_storage(*, character_key: str) -> list[Memory]:
    """Every memory of a character, in sequence order, for the storage download (404
    for an unknown character)."""
    character = get_object_or_404(Character, key=character_key)
    return list(Memory.objects.filter(character=character).order_by("sequence"))
