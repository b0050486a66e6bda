"""Reads of candidate generation, shaped for the pipeline and the admin's pages and API.

``generation_run_progress`` answers "how far is this run" (the live progress bar, the
API); the rest answer what the admin pages list: runs with their completion share, a
run's failed units, one unit with its call records, the prompt versions per stage, and
how many units a launch would create. Each issues a fixed number of queries whatever
the number of runs, units or calls.

!!! BLINDING !!!  Everything here is keyed by model family and carries model names.
Only admin-only views and endpoints may call it.
"""

import json
from dataclasses import dataclass
from decimal import Decimal

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.shortcuts import get_object_or_404

from annotation.corpus.models import Character, Scenario
from annotation.generation.gates import GateReport, generation_gates
from annotation.generation.models import (
    Candidate,
    GenerationRun,
    GenerationStage,
    GenerationUnit,
    LlmCallRecord,
    ModelFamily,
    PromptVersion,
)
from core.plurals import agree, counted

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


# --- the admin's pages --------------------------------------------------------------

ACTIVE_RUN_STATUSES = (
    GenerationRun.Status.PENDING,
    GenerationRun.Status.RUNNING,
    GenerationRun.Status.CANCELLING,
)


def generation_run_list() -> QuerySet[GenerationRun]:
    """Runs, newest first, each annotated with ``units_total``, ``units_done`` (in a
    terminal state), ``units_failed`` and ``units_succeeded``, in one query."""
    terminal = Q(units__status__in=GenerationUnit.TERMINAL)
    return (
        GenerationRun.objects.select_related("created_by")
        .annotate(
            units_total=Count("units"),
            units_done=Count("units", filter=terminal),
            units_failed=Count("units", filter=Q(units__status=GenerationUnit.Status.FAILED)),
            units_succeeded=Count("units", filter=Q(units__status=GenerationUnit.Status.SUCCEEDED)),
        )
        .order_by("-created_at", "-pk")
    )


def generation_run_get(*, run_id: int) -> GenerationRun:
    return get_object_or_404(
        GenerationRun.objects.select_related(
            "created_by", "screening_prompt", "reranking_prompt", "response_prompt"
        ),
        pk=run_id,
    )


def generation_running_count() -> int:
    """Runs that have not reached a final status: the admin's home shows the number."""
    return GenerationRun.objects.filter(status__in=ACTIVE_RUN_STATUSES).count()


def generation_failed_units(*, run_id: int) -> QuerySet[GenerationUnit]:
    return generation_unit_list(run_id=run_id, status=GenerationUnit.Status.FAILED)


def generation_unit_get(*, run_id: int, unit_id: int) -> GenerationUnit:
    """A unit with its call records in ``unit.call_list`` (oldest first) and its
    candidate, if one was written."""
    calls = Prefetch(
        "calls", queryset=LlmCallRecord.objects.order_by("created_at", "pk"), to_attr="call_list"
    )
    unit = get_object_or_404(
        GenerationUnit.objects.select_related(
            "run", "character", "scenario", "profile_version"
        ).prefetch_related(calls),
        run_id=run_id,
        pk=unit_id,
    )
    for call in unit.call_list:
        # Pretty-printed once here so the page can show them in <pre> as they were sent.
        call.request_json = json.dumps(call.request, indent=2, ensure_ascii=False)
        call.parsed_json = json.dumps(call.parsed, indent=2, ensure_ascii=False)
    # The reverse one-to-one raises when absent; the page wants None.
    unit.candidate_or_none = Candidate.objects.filter(unit=unit).first()
    return unit


def prompt_versions_by_stage() -> list[tuple[GenerationStage, list[PromptVersion]]]:
    """Every stage with its versions, newest first; ``versions[0]`` is the current one."""
    versions = PromptVersion.objects.select_related("created_by").order_by("stage", "-number")
    by_stage: dict[str, list[PromptVersion]] = {stage.value: [] for stage in GenerationStage}
    for version in versions:
        by_stage.setdefault(version.stage, []).append(version)
    return [(stage, by_stage[stage.value]) for stage in GenerationStage]


def prompt_version_latest(*, stage: str) -> PromptVersion | None:
    return (
        PromptVersion.objects.select_related("created_by")
        .filter(stage=stage)
        .order_by("-number")
        .first()
    )


# stage_reached -> the stage a unit in that state was working on when it failed
_FAILED_AT = {
    "": GenerationStage.SCREENING,
    GenerationStage.SCREENING: GenerationStage.RERANKING,
    GenerationStage.RERANKING: GenerationStage.RESPONSE,
    GenerationStage.RESPONSE: GenerationStage.RESPONSE,
}
_RUNNING_STATUSES = (
    GenerationUnit.Status.SCREENING,
    GenerationUnit.Status.RERANKING,
    GenerationUnit.Status.RESPONDING,
)
_CELL = ("done", "running", "failed")
STAGE_SHORT_LABELS = {
    GenerationStage.SCREENING: "Screening",
    GenerationStage.RERANKING: "Re-ranking",
    GenerationStage.RESPONSE: "Response",
}


def _percent(part: int, whole: int) -> int:
    return (100 * part) // whole if whole else 0


def generation_run_progress_table(*, run: GenerationRun) -> dict:
    """The run's progress laid out for its page: the pipeline's counts
    (``generation_run_progress``) as rows per family with a cell per stage, plus tokens
    and estimated cost per family, which that selector sums only for the whole run."""
    progress = generation_run_progress(run_id=run.pk)
    spend = {
        row["family"]: row
        for row in GenerationUnit.objects.filter(run_id=run.pk)
        .values("family")
        .annotate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"), cost=Sum("cost_usd"))
        .order_by()
    }
    rows = []
    for family, counts in progress["by_family"].items():
        money = spend.get(family, {})
        per_stage = progress["by_family_stage"].get(family, {})
        rows.append(
            {
                "family": family,
                "label": ModelFamily(family).label if family in ModelFamily.values else family,
                "stages": [
                    {"stage": stage, **per_stage.get(stage, dict.fromkeys(_CELL, 0))}
                    for stage in GenerationStage.values
                ],
                "total": counts["total"],
                "done": sum(counts[status] for status in GenerationUnit.TERMINAL),
                "tokens_in": money.get("tokens_in") or 0,
                "tokens_out": money.get("tokens_out") or 0,
                "cost_usd": money.get("cost") or Decimal("0"),
            }
        )
    S = GenerationUnit.Status
    by_status, total = progress["by_status"], progress["total"]
    return {
        "stages": [{"stage": s.value, "label": STAGE_SHORT_LABELS[s]} for s in GenerationStage],
        "rows": rows,
        "stage_totals": [
            {"stage": stage, **progress["by_stage"][stage]} for stage in GenerationStage.values
        ],
        "total": total,
        "done": progress["finished"],
        "succeeded": by_status[S.SUCCEEDED],
        "failed": by_status[S.FAILED],
        "cancelled": by_status[S.CANCELLED],
        "pending": by_status[S.PENDING],
        "running": sum(by_status[status] for status in _RUNNING_STATUSES),
        "percent": progress["percent"] if total else 0,
        # Bar segment widths; floor so the three never add up past 100.
        "percent_succeeded": _percent(by_status[S.SUCCEEDED], total),
        "percent_failed": _percent(by_status[S.FAILED], total),
        "percent_cancelled": _percent(by_status[S.CANCELLED], total),
        "tokens_in": progress["tokens_in"],
        "tokens_out": progress["tokens_out"],
        "cost_usd": progress["estimated_cost_usd"],
        "calls": progress["calls"],
        "failed_calls": progress["failed_calls"],
        "reranking_skipped": progress["reranking_skipped"],
    }


def generation_failed_units_page(*, run_id: int, page_number, per_page: int) -> Page:
    """One page of the run's failed units, each with ``failed_stage_label``."""
    page = Paginator(generation_failed_units(run_id=run_id), per_page).get_page(page_number)
    page.object_list = list(page.object_list)
    for unit in page.object_list:
        unit.failed_stage_label = STAGE_SHORT_LABELS[_FAILED_AT[unit.stage_reached]]
    return page


@dataclass(frozen=True)
class UnitEstimate:
    characters: int
    scenarios: int
    families: int
    problem: str = ""
    gates: GateReport | None = None

    @property
    def pairs(self) -> int:
        return self.characters * self.scenarios

    @property
    def units(self) -> int:
        return self.pairs * self.families

    @property
    def blocked_pairs(self) -> int:
        return self.gates.blocked_pairs if self.gates else 0


def generation_pair_gates(*, characters=None, scenarios=None) -> GateReport:
    """What blocks the pairs of these characters and scenarios (keys/ids or rows; None:
    every one), and whom each block waits for. A fixed number of queries."""
    chosen = Character.objects.order_by("key")
    if characters is not None:
        chosen = chosen.filter(key__in=[getattr(c, "key", c) for c in characters])
    chosen_scenarios = Scenario.objects.order_by("scenario_id")
    if scenarios is not None:
        chosen_scenarios = chosen_scenarios.filter(
            scenario_id__in=[getattr(s, "scenario_id", s) for s in scenarios]
        )
    return generation_gates(characters=chosen, scenarios=chosen_scenarios)


def generation_unit_estimate(
    *, families, characters=None, scenarios=None, configured=()
) -> UnitEstimate:
    """How many units a run over these choices creates (None: every character or
    scenario), what blocks its pairs (``gates``: whom each waits for), and the first
    reason the launch would be refused, if one is visible now. A fixed number of queries
    whatever the corpus size."""
    gates = generation_pair_gates(characters=characters, scenarios=scenarios)
    problem = ""
    missing = [f for f in families if f not in configured]
    if missing:
        labels = ", ".join(ModelFamily(f).label for f in missing if f in ModelFamily.values)
        problem = f"No provider is configured for {labels}; the launch will be refused."
    elif gates.blocked_pairs:
        problem = (
            f"{gates.blocked_pairs} of the {counted(gates.pairs, 'pair')} "
            f"{agree(gates.blocked_pairs, 'is', 'are')} not ready for generation "
            "(see below): leave them out, or override the gates with a reason."
        )
    return UnitEstimate(
        characters=len(gates.characters),
        scenarios=len(gates.scenarios),
        families=len(families),
        problem=problem,
        gates=gates,
    )


def generation_unit_list(*, run_id: int, status: str | None = None) -> QuerySet[GenerationUnit]:
    units = GenerationUnit.objects.filter(run_id=run_id).select_related("character", "scenario")
    if status:
        units = units.filter(status=status)
    return units.order_by("character__key", "scenario__scenario_id", "family", "pk")
