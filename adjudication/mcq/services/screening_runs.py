"""MCQ screening runs on the one LLM-run framework (issue #33, seed 000 App. D.3.1).

A :class:`McqScreeningRun` holds the screenings asked for together: the items an
assembly run sent to screening, an admin's "screen now", every item awaiting the judge,
or one edited item (the worker opens that run itself). Each screening is a unit; the
run starts, cancels, resumes and retries through ``FLOW`` (``core.llm_runs.RunFlow``),
and each unit is screened by ``adjudication.mcq_screen_unit``
(:func:`adjudication.mcq.services.item_screening.mcq_screening_unit_execute`).

A unit screens the version it was made for. When the item has changed since (a new
version, a review decision), the unit is cancelled with that reason rather than
screening text nobody will read. Resume and retry reopen only units whose item still
stands at their version with no other screening of it, so a version never gets two
results.

Lock order: run-level changes lock the run, then the items, then touch the units; a
unit's own changes lock the item, then the unit (as the screening always did). Nothing
takes a unit lock and then the run lock in one transaction.
"""

import os
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils import timezone

from adjudication.mcq.models import (
    McqAssemblyRun,
    McqError,
    McqItem,
    McqItemVersion,
    McqScreening,
    McqScreeningRun,
)
from adjudication.mcq.versions import current_version
from core.llm_runs.services import RunFlow
from core.llm_runs.spending import parse_budget
from core.providers import configured_provider
from core.tasks import enqueue_on_commit
from llm import ProviderConfig

SCREENER_PROVIDER_PREFIX = "HEARTBENCH_MCQ_SCREENER"
UNIT_TASK = "adjudication.mcq_screen_unit"
Unit = McqScreening.Status
RunStatus = McqScreeningRun.Status

# A unit waiting again has no verdict: it is screened afresh (its calls stay recorded).
_CLEARED = {
    "outcome": McqScreening.Outcome.PENDING,
    "output": None,
    "attempt_errors": [],
    "attempts": 0,
    "needs_human_review": False,
    "prompt_sha256": "",
    "finished_at": None,
}


def screener_provider() -> ProviderConfig | None:
    """The screening judge (App. D.3.1): ``HEARTBENCH_MCQ_SCREENER_*``. None: revised and
    assembled items wait in ``screening`` until one is configured."""
    return configured_provider(SCREENER_PROVIDER_PREFIX)


def run_providers(run: McqScreeningRun) -> set[str]:
    """The provider the screening judge calls (for the lab's monthly caps, issue #36)."""
    config = screener_provider()
    return {config.kind.value} if config is not None else set()


FLOW = RunFlow(
    run_model=McqScreeningRun,
    unit_model=McqScreening,
    error=McqError,
    label="Screening run",
    run_field="run",
    reopen_fields=_CLEARED,
    providers=run_providers,
)


def screener_prices(environ=None) -> tuple[Decimal, Decimal]:
    """USD per million tokens in and out (``HEARTBENCH_MCQ_SCREENER_PRICE_IN``/``_OUT``;
    0 when unknown), for the cost estimate."""
    env = os.environ if environ is None else environ
    prices = []
    for name in ("PRICE_IN", "PRICE_OUT"):
        try:
            prices.append(Decimal(env.get(f"{SCREENER_PROVIDER_PREFIX}_{name}") or "0"))
        except InvalidOperation:
            prices.append(Decimal("0"))
    return prices[0], prices[1]


# --- which versions a run may screen ----------------------------------------------------


def _version_taken(version: McqItemVersion, *, besides: int | None = None) -> bool:
    """Whether another screening of the version is open or has a verdict."""
    return (
        McqScreening.objects.filter(
            item_version=version, status__in=(*McqScreening.OPEN, Unit.DONE)
        )
        .exclude(pk=besides)
        .exists()
    )


def _stands_at(unit: McqScreening, item: McqItem, *statuses) -> bool:
    return item.version == unit.item_version.number and item.status in statuses


# --- opening and starting a run -----------------------------------------------------------


def _queue(run_id: int, ids: list[int], on_unavailable=None) -> None:
    if ids:
        enqueue_on_commit(
            UNIT_TASK,
            what=f"Screening run {run_id}",
            on_unavailable=on_unavailable,
            calls=[(pk,) for pk in ids],
        )


@transaction.atomic
def screening_run_open(
    *,
    item_ids,
    note: str,
    user=None,
    assembly_run: McqAssemblyRun | None = None,
    dispatch: bool = True,
    on_unavailable=None,
    budget_usd=None,
) -> McqScreeningRun | None:
    """A started run screening the current version of each item awaiting screening
    that has no screening open or done for it; None when no item needs one. The units
    are queued once the transaction commits (``dispatch=False``: the caller executes
    them itself). ``budget_usd`` (None: none) stops the run once its recorded cost
    reaches it (issue #36)."""
    budget_usd = _budget(budget_usd)
    items = list(
        McqItem.objects.select_for_update()
        .filter(pk__in=list(item_ids), status=McqItem.Status.SCREENING)
        .order_by("pk")
    )
    versions = [(item, current_version(item)) for item in items]
    versions = [(item, v) for item, v in versions if not _version_taken(v)]
    if not versions:
        return None
    run = McqScreeningRun.objects.create(
        note=note, created_by=user, assembly_run=assembly_run, budget_usd=budget_usd
    )
    McqScreening.objects.bulk_create(
        McqScreening(run=run, item=item, item_version=version) for item, version in versions
    )
    run = FLOW.lock(run.pk)
    ids = FLOW.start_locked(run)
    if dispatch:
        _queue(run.pk, ids, on_unavailable)
    return run


def _budget(value):
    try:
        return parse_budget(value)
    except ValueError as error:
        raise McqError(str(error)) from None


def screening_run_for_everything_awaiting(
    *, user, budget_usd=None, on_unavailable=None
) -> McqScreeningRun:
    """The admin's "screen every item awaiting screening", with an optional budget."""
    budget_usd = _budget(budget_usd)
    if screener_provider() is None:
        raise McqError(
            "No screening model is configured (HEARTBENCH_MCQ_SCREENER_*); items wait until one is."
        )
    awaiting = McqItem.objects.filter(status=McqItem.Status.SCREENING).values_list("pk", flat=True)
    run = screening_run_open(
        item_ids=awaiting,
        note="Every item awaiting screening.",
        user=user,
        on_unavailable=on_unavailable,
        budget_usd=budget_usd,
    )
    if run is None:
        raise McqError("No item awaits screening without a screening already open or done.")
    return run


def screening_run_for_assembly(*, assembly_run: McqAssemblyRun) -> McqScreeningRun | None:
    """One run for the complete items an assembly run made (None: no judge configured,
    or nothing to screen; the items wait)."""
    if screener_provider() is None:
        return None
    ids = McqItem.objects.filter(
        status=McqItem.Status.SCREENING, assembly_params__run=assembly_run.pk
    ).values_list("pk", flat=True)
    return screening_run_open(
        item_ids=ids,
        note=f"The items of assembly run {assembly_run.pk}.",
        user=assembly_run.started_by,
        assembly_run=assembly_run,
    )


# --- cancel, resume, retry ----------------------------------------------------------------


@transaction.atomic
def screening_run_cancel(*, run_id: int, user=None, on_unavailable=None) -> McqScreeningRun:
    """Waiting screenings are cancelled now; one the judge is working on stops before
    its next attempt. The items stay awaiting screening."""
    run = FLOW.lock(run_id, missing=f"No screening run {run_id}.")
    FLOW.cancel_locked(run)
    return run


def _reopen(run, units, *, statuses, nothing: str, on_unavailable) -> McqScreeningRun:
    ids = []
    for unit in units:
        item = McqItem.objects.select_for_update().get(pk=unit.item_id)
        if not _stands_at(unit, item, *statuses) or _version_taken(
            unit.item_version, besides=unit.pk
        ):
            continue
        if item.status != McqItem.Status.SCREENING:
            # Flagged only because nobody screened it: it awaits the judge again.
            item.status = McqItem.Status.SCREENING
            item.save(update_fields=["status"])
        ids.append(unit.pk)
    if not ids:
        raise McqError(f"{FLOW.name(run)}: {nothing}")
    FLOW.reopen_locked(run, ids=ids)
    _queue(run.pk, ids, on_unavailable)
    return run


@transaction.atomic
def screening_run_resume(
    *, run_id: int, budget_usd=None, user=None, on_unavailable=None
) -> McqScreeningRun:
    """A cancelled run's cancelled screenings wait again, those whose item still awaits
    screening at their version; a run stopped at a spending limit takes up its waiting
    screenings again with ``budget_usd`` as its new budget (None: none, never the old
    one kept silently). A new budget for any other run is refused."""
    run = FLOW.lock(run_id, missing=f"No screening run {run_id}.")
    if run.status == RunStatus.STOPPED_AT_BUDGET:
        # Stopped at a spending limit (issue #36): its waiting screenings go on, refused
        # while a limit would stop it again at once.
        ids = FLOW.resume_locked(run, budget_usd=_budget(budget_usd))
        if ids:
            _queue(run.pk, ids, on_unavailable)
        else:
            FLOW.finish_locked(run)
        return run
    if run.status != RunStatus.CANCELLED:
        raise FLOW.refusal(run, "a cancelled run can be resumed")
    if budget_usd not in (None, ""):
        raise McqError(
            f"{FLOW.name(run)} is cancelled: a new budget is given only when resuming a run "
            "stopped at its budget."
        )
    units = FLOW.units(run.pk).filter(status=Unit.CANCELLED).select_related("item_version")
    return _reopen(
        run,
        units.order_by("pk"),
        statuses=(McqItem.Status.SCREENING,),
        nothing="no cancelled screening is left to resume (each item has changed or been "
        "screened since).",
        on_unavailable=on_unavailable,
    )


@transaction.atomic
def screening_run_retry(*, run_id: int, user=None, on_unavailable=None) -> McqScreeningRun:
    """The failed screenings (technical failures) are screened again, those whose item
    still stands at their version, unreviewed: it goes back to awaiting screening."""
    run = FLOW.lock(run_id, missing=f"No screening run {run_id}.")
    if run.status != RunStatus.FINISHED_WITH_FAILURES:
        raise FLOW.refusal(run, "a run that finished with failures can be retried")
    units = FLOW.units(run.pk).filter(status=Unit.FAILED).select_related("item_version")
    return _reopen(
        run,
        units.order_by("pk"),
        statuses=(McqItem.Status.FLAGGED, McqItem.Status.SCREENING),
        nothing="no failed screening is left to retry (each item has been reviewed, "
        "changed or screened since).",
        on_unavailable=on_unavailable,
    )


# --- a unit's own transitions ------------------------------------------------------------


def unit_claim(*, screening_id: int) -> McqScreening | None:
    """The unit marked running; None when there is nothing to screen: it is final, its
    run is not running (a unit of a cancelled run is cancelled), or its item changed
    since (the unit is cancelled, saying so), or its run has just stopped at a
    spending limit (the unit waits for the run to be resumed)."""
    waiting = McqScreening.objects.select_related("run").get(pk=screening_id)
    if FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        unit = (
            McqScreening.objects.select_for_update(of=("self",))
            .select_related("run", "item_version", "item")
            .get(pk=screening_id)
        )
        if unit.is_terminal or unit.run_id is None:
            return None
        if unit.run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            unit_cancel(unit)
            return None
        if unit.run.status != RunStatus.RUNNING:
            return None
        item = unit.item
        if not _stands_at(unit, item, McqItem.Status.SCREENING):
            unit_cancel(
                unit,
                kind="item_changed",
                message=f"{item.question_id} changed before this screening ran: it is at "
                f"version {item.version}, {item.get_status_display().lower()}.",
            )
            return None
        unit.status = Unit.RUNNING
        unit.save(update_fields=["status", "updated_at"])
        return unit


def unit_cancel(unit: McqScreening, *, kind: str = "", message: str = "") -> None:
    """Cancel a unit the caller holds locked."""
    unit.status = Unit.CANCELLED
    unit.error_kind = kind
    unit.error_message = message
    unit.save(update_fields=["status", "error_kind", "error_message", "updated_at"])


def unit_stop_if_cancelled(*, screening_id: int, run_id: int) -> bool:
    """Between two attempts: when the run is being cancelled, the unit is cancelled and
    True is returned."""
    if not FLOW.cancel_requested(run_id=run_id):
        return False
    with transaction.atomic():
        unit = McqScreening.objects.select_for_update().get(pk=screening_id)
        if not unit.is_terminal:
            unit_cancel(unit)
    return True


def unit_store_result(
    *,
    screening_id: int,
    output: dict | None,
    errors: list[dict],
    judge_family: str,
    judge_model: str,
    prompt_sha256: str,
) -> McqScreening:
    """Store a unit's result once: a pass or flag (done), or a technical failure
    (failed, with the last reason); the item passes into the final set or goes to
    review when it still awaits this version's screening. A unit another delivery
    already finished is returned as it is."""
    with transaction.atomic():
        item_id = McqScreening.objects.values_list("item_id", flat=True).get(pk=screening_id)
        item = McqItem.objects.select_for_update().get(pk=item_id)
        unit = (
            McqScreening.objects.select_related("item_version")
            .select_for_update(of=("self",))
            .get(pk=screening_id)
        )
        if unit.is_terminal:
            return unit
        if output is None:
            last = errors[-1] if errors else {"error_kind": "invalid_output", "problems": []}
            unit.outcome = McqScreening.Outcome.TECHNICAL_FAILURE
            unit.status = Unit.FAILED
            unit.needs_human_review = True
            unit.error_kind = str(last["error_kind"])[:40]
            unit.error_message = (
                f"No valid, consistent answer in {len(errors)} attempts; the last: "
                + " ".join(last["problems"])
            )
        else:
            unit.output = output
            unit.needs_human_review = output["needs_human_review"]
            unit.outcome = (
                McqScreening.Outcome.FLAGGED
                if output["needs_human_review"]
                else McqScreening.Outcome.PASSED
            )
            unit.status = Unit.DONE
        unit.attempts = len(errors) + (1 if output is not None else 0)
        unit.attempt_errors = errors
        unit.judge_family = judge_family
        unit.judge_model = judge_model
        unit.prompt_sha256 = prompt_sha256
        unit.finished_at = timezone.now()
        unit.save()
        # An edit made while the judge was working has its own screening queued.
        if _stands_at(unit, item, McqItem.Status.SCREENING):
            item.status = (
                McqItem.Status.FINAL
                if unit.outcome == McqScreening.Outcome.PASSED
                else McqItem.Status.FLAGGED
            )
            item.save(update_fields=["status"])
    return unit
