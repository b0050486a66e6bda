"""Reads of candidate generation: run progress for the admin's live progress bar.

!!! BLINDING !!!  Everything here is keyed by model family: admin-facing only.
"""

from decimal import Decimal

from django.db.models import Count, Q, Sum

from annotation.generation.models import (
    GenerationRun,
    GenerationStage,
    GenerationUnit,
    LlmCallRecord,
    ModelFamily,
)

STAGES = list(GenerationStage.values)
_RUNNING_STAGE = {
    GenerationUnit.Status.SCREENING: GenerationStage.SCREENING,
    GenerationUnit.Status.RERANKING: GenerationStage.RERANKING,
    GenerationUnit.Status.RESPONDING: GenerationStage.RESPONSE,
}


def _stage_counts() -> dict:
    return {stage: {"done": 0, "running": 0, "failed": 0} for stage in STAGES}


def generation_run_progress(*, run_id: int) -> dict:
    """Counts for one run, in two queries over units plus one over calls.

    ``by_family[family][status]`` counts units; ``by_stage[stage]`` and
    ``by_family_stage[family][stage]`` count units whose stage is done (result stored),
    running (a worker is in it) or failed (it is where the unit failed). Re-ranking
    counts as done when it was skipped (at most 50 memories survived screening).
    """
    run = GenerationRun.objects.get(pk=run_id)
    statuses = list(GenerationUnit.Status.values)
    families = [f for f in ModelFamily.values if f in run.families] or list(run.families)
    by_family = {f: dict.fromkeys([*statuses, "total"], 0) for f in families}
    by_stage = _stage_counts()
    by_family_stage = {f: _stage_counts() for f in families}
    rows = (
        GenerationUnit.objects.filter(run_id=run_id)
        .values("family", "status", "stage_reached")
        .annotate(n=Count("id"))
    )
    total = 0
    for row in rows:
        family, status, reached, n = row["family"], row["status"], row["stage_reached"], row["n"]
        total += n
        counts = by_family.setdefault(family, dict.fromkeys([*statuses, "total"], 0))
        counts[status] += n
        counts["total"] += n
        per_family = by_family_stage.setdefault(family, _stage_counts())
        done_upto = STAGES.index(reached) + 1 if reached else 0
        for stage in STAGES[:done_upto]:
            by_stage[stage]["done"] += n
            per_family[stage]["done"] += n
        if status in _RUNNING_STAGE:
            by_stage[_RUNNING_STAGE[status]]["running"] += n
            per_family[_RUNNING_STAGE[status]]["running"] += n
        elif status == GenerationUnit.Status.FAILED and done_upto < len(STAGES):
            by_stage[STAGES[done_upto]]["failed"] += n
            per_family[STAGES[done_upto]]["failed"] += n
    sums = GenerationUnit.objects.filter(run_id=run_id).aggregate(
        tokens_in=Sum("tokens_in"),
        tokens_out=Sum("tokens_out"),
        cost=Sum("cost_usd"),
        skipped=Count("id", filter=Q(reranking_skipped=True)),
    )
    calls = LlmCallRecord.objects.filter(unit__run_id=run_id).aggregate(
        total=Count("id"), failed=Count("id", filter=Q(ok=False))
    )
    status_totals = {s: sum(c.get(s, 0) for c in by_family.values()) for s in statuses}
    finished = sum(status_totals[s] for s in GenerationUnit.TERMINAL)
    return {
        "run_id": run.pk,
        "status": run.status,
        "total": total,
        "finished": finished,
        "percent": round(100.0 * finished / total, 1) if total else 100.0,
        "by_status": status_totals,
        "by_family": by_family,
        "by_stage": by_stage,
        "by_family_stage": by_family_stage,
        "reranking_skipped": sums["skipped"] or 0,
        "tokens_in": sums["tokens_in"] or 0,
        "tokens_out": sums["tokens_out"] or 0,
        "estimated_cost_usd": sums["cost"] or Decimal("0"),
        "calls": calls["total"] or 0,
        "failed_calls": calls["failed"] or 0,
    }
