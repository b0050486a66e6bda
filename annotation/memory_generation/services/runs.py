"""Memory generation runs: create, start, cancel, resume and retry (seed 000 App. B.5).

A run is created from one or more plans (one per character): its batches are made up
front from each plan's quotas (``batching``) and interleaved across the characters.
Starting it sends at most ``concurrency`` batches to the workers; each batch that ends
sends the next (``services.batches``), so the characters run side by side within the
provider's limit. Run-level changes lock the run row first and then touch batches.
"""

from django.db import transaction

import llm
from annotation.memory_generation import batching
from annotation.memory_generation.models import MemoryBatch, MemoryPlan, MemoryRun
from annotation.memory_generation.prompts import latest_prompt
from annotation.memory_generation.services import calls
from annotation.memory_generation.services.batches import (
    FLOW,
    MemoryGenerationError,
    dispatch_locked,
    memory_label,
)
from core.llm_runs.spending import parse_budget
from core.text_rules import NAME, NOTE, check_text

BatchStatus = MemoryBatch.Status
RunStatus = MemoryRun.Status
MAX_CONCURRENCY = 256


def memory_provider_config() -> llm.ProviderConfig | None:
    """The provider of ``HEARTBENCH_MEMORY_*`` in this process, None when not set."""
    try:
        return calls.provider_config()
    except calls.ConfigurationError as error:
        raise MemoryGenerationError(str(error)) from None


def _plans(plan_ids) -> list[MemoryPlan]:
    try:
        ids = [int(i) for i in plan_ids or []]
    except (TypeError, ValueError):
        raise MemoryGenerationError("Plan ids must be whole numbers.") from None
    if not ids:
        raise MemoryGenerationError("Choose at least one plan.")
    found = {
        p.pk: p
        for p in MemoryPlan.objects.select_related("character", "profile_version").filter(
            pk__in=ids
        )
    }
    missing = sorted(set(ids) - set(found))
    if missing:
        raise MemoryGenerationError(f"Unknown plan {', '.join(map(str, missing))}.")
    plans = [found[i] for i in dict.fromkeys(ids)]
    seen = {}
    for plan in plans:
        key = plan.character.key
        if key in seen:
            raise MemoryGenerationError(
                f"Plans {seen[key]} and {plan.pk} are both for {key}; a run takes one plan "
                "per character."
            )
        seen[key] = plan.pk
        if not plan.profile_version.is_frozen:
            raise MemoryGenerationError(
                f"{plan.profile_version} (plan {plan.pk}) is not frozen; memories are "
                "generated only from a profile the senior reviewer has frozen (App. B.3)."
            )
        if memory_label(plan.profile_version) is None:
            raise MemoryGenerationError(
                f"{plan.profile_version} has no single defining trait (one score ≥ 0.90 or "
                "≤ 0.15, or all 0.50), so its memory ids would have no trait label "
                "(MEM_CHAR_XX_<label>_NNNN)."
            )
    busy = (
        MemoryRun.objects.filter(plans__in=plans)
        .exclude(status=RunStatus.CANCELLED)
        .values_list("pk", "plans__pk")
        .distinct()
    )
    for run_id, plan_id in busy:
        if plan_id in seen.values():
            raise MemoryGenerationError(
                f"Plan {plan_id} is already in memory run {run_id}; resume or retry that "
                "run instead of generating its memories twice."
            )
    return plans


@transaction.atomic
def run_create(
    *,
    user,
    plan_ids,
    model_name: str = "",
    concurrency=None,
    seed: int = 0,
    tier_shares=None,
    note: str = "",
    budget_usd=None,
) -> MemoryRun:
    """A pending run over the plans, its batches made from their quotas. ``budget_usd``
    (None: no budget) stops the run once its recorded cost reaches it
    (``core.llm_runs.spending``)."""
    check_text(model_name, label="Model", limit=NAME, error=MemoryGenerationError)
    check_text(note, label="Note", limit=NOTE, error=MemoryGenerationError)
    config = memory_provider_config()
    if config is None:
        raise MemoryGenerationError(
            "No memory generation provider is configured; set HEARTBENCH_MEMORY_KIND and "
            "HEARTBENCH_MEMORY_MODEL (with HEARTBENCH_MEMORY_API_KEY or _BASE_URL) in the "
            "environment of the web server and the workers, and restart them."
        )
    problems = batching.tier_share_problems(tier_shares)
    if problems:
        raise MemoryGenerationError(" ".join(problems))
    shares = batching.resolved_tier_shares(tier_shares)
    if concurrency in (None, ""):
        concurrency = config.concurrency
    if isinstance(concurrency, bool) or not isinstance(concurrency, int):
        raise MemoryGenerationError("The concurrency must be a whole number.")
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise MemoryGenerationError(
            f"The concurrency must be between 1 and {MAX_CONCURRENCY}; got {concurrency}."
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise MemoryGenerationError("The seed must be a whole number ≥ 0.")
    budget = _budget(budget_usd)
    plans = _plans(plan_ids)

    planned = planned_batches(plans, seed=seed, tier_shares=shares)
    if not planned:
        raise MemoryGenerationError("The chosen plans have nothing left to generate.")
    run = MemoryRun.objects.create(
        prompt=latest_prompt(),
        provider=config.kind.value,
        model_name=(model_name or "").strip() or config.model,
        concurrency=concurrency,
        seed=seed,
        tier_shares=shares,
        note=note,
        created_by=user,
        budget_usd=budget,
    )
    run.plans.set(plans)
    rows = [
        MemoryBatch(
            run=run,
            plan=plan,
            character=plan.character,
            index=index,
            life_stage=spec.life_stage,
            first_age=spec.first_age,
            last_age=spec.last_age,
            slots=[s.as_dict() for s in spec.slots],
            slot_count=len(spec.slots),
        )
        for index, plan, spec in planned
    ]
    MemoryBatch.objects.bulk_create(rows, batch_size=1000)
    return run


def planned_batches(plans, *, seed: int, tier_shares) -> list[tuple[int, MemoryPlan, object]]:
    """(index, plan, ``batching.BatchPlan``) of every batch a run over ``plans`` makes,
    interleaved across the characters so the batches in flight span them all; the run
    and its cost estimate (``estimate``) both read this."""
    per_plan = [
        (
            plan,
            batching.make_batches(
                plan.quotas, seed=seed, tier_shares=tier_shares, salt=plan.character.key
            ),
        )
        for plan in plans
    ]
    rows = []
    longest = max((len(made) for _, made in per_plan), default=0)
    for turn in range(longest):
        for plan, made in per_plan:
            if turn < len(made):
                rows.append((len(rows) + 1, plan, made[turn]))
    return rows


def _budget(value):
    try:
        return parse_budget(value)
    except ValueError as error:
        raise MemoryGenerationError(str(error)) from None


def _locked_run(run_id) -> MemoryRun:
    return FLOW.lock(run_id, missing=f"There is no memory run {run_id}.")


@transaction.atomic
def run_start(*, run_id, user, on_unavailable=None) -> MemoryRun:
    """pending → running; sends up to ``concurrency`` batches once this commits.
    ``on_unavailable(message)`` is told when the broker cannot take them."""
    run = _locked_run(run_id)
    FLOW.start_locked(run)
    dispatch_locked(run, on_unavailable=on_unavailable)
    FLOW.finish_locked(run)
    return run


@transaction.atomic
def run_cancel(*, run_id, user) -> MemoryRun:
    """Stop a run: waiting batches are cancelled now, running ones after the slot they
    are generating (a call already sent is not abandoned). Stored memories stay."""
    run = _locked_run(run_id)
    FLOW.cancel_locked(run)
    return run


def _reopen(run: MemoryRun, statuses, on_unavailable) -> MemoryRun:
    FLOW.reopen_locked(run, statuses=statuses)
    dispatch_locked(run, on_unavailable=on_unavailable)
    FLOW.finish_locked(run)
    return run


#: ``run_resume``'s budget when none is given: the run keeps its own.
KEEP_BUDGET = object()


@transaction.atomic
def run_resume(*, run_id, user, on_unavailable=None, budget_usd=KEEP_BUDGET) -> MemoryRun:
    """cancelled → running: the cancelled batches wait again and ask only for their
    empty slots; failed ones stay failed (retry them). A run stopped at a spending
    limit runs its waiting batches, with ``budget_usd`` as its budget (None: no budget;
    left out: the budget it had)."""
    run = _locked_run(run_id)
    if run.status == RunStatus.STOPPED_AT_BUDGET:
        # Stopped at a spending limit (issue #36): refused while the limit holds; its
        # waiting batches (some sent before the stop, never taken up) are sent again.
        budget = run.budget_usd if budget_usd is KEEP_BUDGET else _budget(budget_usd)
        FLOW.resume_locked(run, budget_usd=budget)
        return _reopen(run, [BatchStatus.PENDING], on_unavailable)
    if run.status != RunStatus.CANCELLED:
        raise FLOW.refusal(
            run,
            "a cancelled run can be resumed",
            hint=" (wait until it has stopped)." if run.status == RunStatus.CANCELLING else ".",
        )
    # A pending batch whose message never reached the broker is sent again too.
    return _reopen(run, [BatchStatus.CANCELLED, BatchStatus.PENDING], on_unavailable)


@transaction.atomic
def run_retry_failed(*, run_id, user, on_unavailable=None) -> MemoryRun:
    """finished with failures (or still running) → running: the failed batches wait
    again and ask only for their empty slots."""
    run = _locked_run(run_id)
    if run.status not in (RunStatus.FINISHED_WITH_FAILURES, RunStatus.RUNNING):
        raise FLOW.refusal(run, "a run with failed batches can retry them")
    if not run.batches.filter(status=BatchStatus.FAILED).exists():
        raise MemoryGenerationError(f"Memory run {run.pk} has no failed batches to retry.")
    return _reopen(run, [BatchStatus.FAILED], on_unavailable)
