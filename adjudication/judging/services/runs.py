"""Judge runs: create one over chosen pairs, start it, cancel it, resume it (issue 22).

A run is created with every call up front: one per (pair, order), each with its seeded
permutation (``prompts.candidate_orders``). Its states are the framework's and every
transition is ``FLOW``'s (core.llm_runs.services.RunFlow): start, cancel, resume a
cancelled run, retry the failed calls of a run that finished with failures. Starting,
resuming or retrying queues the calls' tasks once the transaction commits; a worker runs
each call (``calls``). Run-level changes lock the run row first and then touch calls; a
call's own transitions lock only the call row.

!!! BLINDING !!!  Admin-facing only: nothing here may reach annotators.
"""

from django.conf import settings
from django.db import transaction
from django.db.models import prefetch_related_objects

from adjudication.judging.models import MAX_ORDERS_PER_PAIR, JudgeCall, JudgeRun
from adjudication.judging.prompts import PROMPT_VERSION, candidate_orders
from adjudication.judging.selectors import judge_eligible_pairs
from annotation.generation.models import ModelFamily
from core.llm_runs.services import RunFlow
from core.llm_runs.spending import parse_budget
from core.tasks import enqueue_on_commit
from core.text_rules import NAME, NOTE, check_texts

RunStatus = JudgeRun.Status
CallStatus = JudgeCall.Status


class JudgeRunError(Exception):
    """A judge-run request that cannot be carried out as asked; the message says why."""


# A judge run's transitions: the framework's, with its default settings. A call that
# waits again forgets when it was last taken up.
def judge_provider_configs() -> dict:
    """{family: provider config} the judge may use: the generation families' response
    providers (``settings.HEARTBENCH_GENERATION_FAMILIES``)."""
    families = getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}
    return {family: setup["response"] for family, setup in families.items()}


def run_providers(run: JudgeRun) -> set[str]:
    """The provider the run's judge calls (for the lab's monthly caps, issue #36)."""
    config = judge_provider_configs().get(run.provider_family)
    return {config.kind.value} if config is not None else set()


FLOW = RunFlow(
    run_model=JudgeRun,
    unit_model=JudgeCall,
    error=JudgeRunError,
    label="Judge run",
    reopen_fields={"started_at": None, "finished_at": None},
    providers=run_providers,
)


@transaction.atomic
def judge_run_create(
    *,
    user,
    name: str,
    provider_family: str,
    judge_family: str = "",
    model: str = "",
    seed: int,
    orders_per_pair: int = 1,
    pair_ids=None,
    note: str = "",
    budget_usd=None,
) -> JudgeRun:
    """A draft run with one pending call per chosen pair and order. ``pair_ids`` None
    means every eligible pair (three submitted human judgments); a chosen pair that is
    not eligible is refused. ``judge_family`` defaults to the provider's family, and
    ``model`` to the provider's configured model. ``budget_usd`` (None: none) stops the
    run once its recorded cost reaches it (``core.llm_runs.spending``)."""
    check_texts(
        {"name": name or "", "model": model or "", "note": note or ""},
        {"name": NAME, "model": NAME, "note": NOTE},
        error=JudgeRunError,
    )
    budget = _budget(budget_usd)
    configs = judge_provider_configs()
    if provider_family not in configs:
        raise JudgeRunError(
            f"No provider is configured for {provider_family or 'the judge'}; set "
            f"HEARTBENCH_{(provider_family or 'FAMILY').upper()}_API_KEY (or _KIND/_BASE_URL) "
            "in the environment and restart."
        )
    judge_family = judge_family or provider_family
    if judge_family not in ModelFamily.values:
        raise JudgeRunError(
            f"Unknown model family {judge_family}; choose from {', '.join(ModelFamily.values)}."
        )
    if not 1 <= int(orders_per_pair) <= MAX_ORDERS_PER_PAIR:
        raise JudgeRunError(
            f"Ask for 1 to {MAX_ORDERS_PER_PAIR} candidate orders per pair "
            "(there are six orders of three candidates)."
        )
    eligible = {pair.pk: pair for pair in judge_eligible_pairs()}
    if pair_ids is None:
        pairs = list(eligible.values())
    else:
        wanted = [int(p) for p in pair_ids]
        missing = [p for p in wanted if p not in eligible]
        if missing:
            raise JudgeRunError(
                f"Pair {', '.join(map(str, missing))} cannot be judged: a judge run takes "
                "pairs with three candidates and three submitted human judgments."
            )
        pairs = [eligible[p] for p in dict.fromkeys(wanted)]
    if not pairs:
        raise JudgeRunError(
            "There is no pair to judge: a judge run takes pairs whose three annotators "
            "have all submitted."
        )
    config = configs[provider_family]
    run = JudgeRun.objects.create(
        name=name.strip() or f"{ModelFamily(judge_family).label} judge",
        judge_family=judge_family,
        provider_family=provider_family,
        provider_kind=str(getattr(config.kind, "value", config.kind)),
        model=model.strip() or config.model,
        seed=seed,
        orders_per_pair=orders_per_pair,
        prompt_version=PROMPT_VERSION,
        note=note,
        created_by=user,
        budget_usd=budget,
    )
    run.pairs.set(pairs)
    prefetch_related_objects(pairs, "candidates")
    candidates = {pair.pk: [c.pk for c in pair.candidates.all()] for pair in pairs}
    JudgeCall.objects.bulk_create(
        [
            JudgeCall(run=run, pair=pair, order_index=index, permutation=order)
            for pair in pairs
            for index, order in enumerate(
                candidate_orders(
                    seed=seed,
                    pair_id=pair.pk,
                    candidate_ids=candidates[pair.pk],
                    count=orders_per_pair,
                )
            )
        ],
        batch_size=2000,
    )
    return run


def _budget(value):
    try:
        return parse_budget(value)
    except ValueError as error:
        raise JudgeRunError(str(error)) from None


def _enqueue_calls(run: JudgeRun, call_ids: list[int], on_unavailable) -> None:
    """One task per call once the transaction commits. Without a broker the calls stay
    pending and the run queued: resuming is safe."""
    enqueue_on_commit(
        "adjudication.execute_judge_call",
        what=f"Judge run {run.pk}",
        on_unavailable=on_unavailable,
        calls=[(call_id,) for call_id in call_ids],
    )


@transaction.atomic
def judge_run_start(*, run_id: int, on_unavailable=None) -> JudgeRun:
    """Queue a pending run's calls once this transaction commits."""
    run = FLOW.lock(run_id)
    call_ids = FLOW.start_locked(run)
    if call_ids:
        _enqueue_calls(run, call_ids, on_unavailable)
    else:
        run_finish_locked(run)
    return run


@transaction.atomic
def judge_run_cancel(*, run_id: int) -> JudgeRun:
    """Stop a run: calls still waiting are cancelled now; a call already sent to the
    model finishes and is recorded (its answer is not thrown away), and the run is
    cancelled once none is in flight."""
    run = FLOW.lock(run_id)
    FLOW.cancel_locked(run)
    return run


#: ``judge_run_resume``'s budget when none is given: the run's own, as it is.
KEEP_BUDGET = object()


@transaction.atomic
def judge_run_resume(*, run_id: int, on_unavailable=None, budget_usd=KEEP_BUDGET) -> JudgeRun:
    """Queue again every call of a cancelled run that has no verdict (cancelled calls,
    and waiting ones whose task may never have reached the broker), the waiting calls
    of a run stopped at a spending limit, or the failed calls of a run that finished
    with failures (a retry). Succeeded calls are kept as they are. A run stopped at a
    spending limit takes ``budget_usd`` as its budget (None: none; not given: the one it
    has), and is refused while it would stop again at once."""
    run = FLOW.lock(run_id)
    if run.status == RunStatus.STOPPED_AT_BUDGET:
        # Stopped at a spending limit (issue #36): its waiting calls go on, refused while
        # the limit still holds.
        budget = run.budget_usd if budget_usd is KEEP_BUDGET else _budget(budget_usd)
        call_ids = FLOW.resume_locked(run, budget_usd=budget)
        if call_ids:
            _enqueue_calls(run, call_ids, on_unavailable)
        else:
            FLOW.finish_locked(run)
        return run
    if run.status == RunStatus.CANCELLED:
        statuses = (CallStatus.CANCELLED, CallStatus.PENDING)
    elif run.status == RunStatus.FINISHED_WITH_FAILURES:
        statuses = (CallStatus.FAILED,)
    else:
        hint = " (wait until it has stopped)." if run.status == RunStatus.CANCELLING else ""
        raise FLOW.refusal(
            run, "a cancelled run or one that finished with failures can be resumed", hint=hint
        )
    call_ids = list(
        run.calls.select_for_update()
        .filter(status__in=statuses)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not call_ids:
        raise JudgeRunError(f"Judge run {run.pk} has no call left to run.")
    FLOW.reopen_locked(run, ids=call_ids)
    _enqueue_calls(run, call_ids, on_unavailable)
    return run


# --- finishing -------------------------------------------------------------------------


def run_has_open_calls(run_id: int) -> bool:
    return JudgeCall.objects.filter(run_id=run_id).exclude(status__in=JudgeCall.TERMINAL).exists()


run_finish_if_done = FLOW.finish_if_done
run_finish_locked = FLOW.finish_locked
