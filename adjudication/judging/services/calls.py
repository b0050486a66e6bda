"""One judge call (a unit of its run): claimed by a worker, its prompt built from the
pair's materials in the call's order, sent to the run's provider, the model call stored
as a ``JudgeCallRecord`` (``core.llm_runs.services.record_call``, which adds its tokens
and cost to the call in the same transaction), and a valid answer stored as a
``JudgeVerdict`` whose letter is mapped back to the candidate through the permutation.

Each transition locks the call row only (see ``runs`` for the lock order). The model
call is recorded before its answer is looked at, so a worker killed after it loses
nothing that was paid for.

!!! BLINDING !!!  Admin-facing only: nothing here may reach annotators.
"""

import logging
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adjudication.judging import prompts
from adjudication.judging.models import JudgeCall, JudgeCallRecord, JudgeRun, JudgeVerdict
from adjudication.judging.selectors import judge_materials
from adjudication.judging.services.runs import FLOW, judge_provider_configs, run_finish_if_done
from annotation.comparison.models import COMPARISON_LETTERS
from annotation.comparison.services import ComparisonError, check_judgment
from core.llm_runs.services import record_call
from core.plurals import counted
from core.providers import cached_client, storable

logger = logging.getLogger(__name__)

CallStatus = JudgeCall.Status
RunStatus = JudgeRun.Status
NOT_CONFIGURED = "not_configured"
INVALID_VERDICT = "invalid_verdict"


def judge_call_execute(*, call_id: int) -> JudgeCall:
    """Run one call. Safe to call any number of times: a finished call is returned
    unchanged, a call of a cancelled run is cancelled, and only one verdict is kept."""
    call = _claim(call_id)
    if call is None:
        # A call of a cancelling run may have been the last one it waited for.
        run_id = JudgeCall.objects.values_list("run_id", flat=True).get(pk=call_id)
        run_finish_if_done(run_id=run_id)
        return JudgeCall.objects.get(pk=call_id)
    try:
        _send(call)
    except Exception as exc:
        logger.exception("judge call %s crashed", call_id)
        _finish(call_id, status=CallStatus.FAILED, kind="internal_error", error=str(exc))
        run_finish_if_done(run_id=call.run_id)
        raise
    run_finish_if_done(run_id=call.run_id)
    return JudgeCall.objects.get(pk=call_id)


def _claim(call_id: int) -> JudgeCall | None:
    """The call, marked running; None when there is nothing to do (or its run has just
    stopped at a spending limit: the call waits for the run to be resumed)."""
    waiting = JudgeCall.objects.select_related("run").get(pk=call_id)
    if FLOW.held_at_spending_limit(waiting):
        return None
    with transaction.atomic():
        call = (
            JudgeCall.objects.select_for_update(of=("self",))
            .select_related("run", "pair__character", "pair__scenario", "pair__profile_version")
            .get(pk=call_id)
        )
        if call.is_terminal:
            return None
        # Read the run's status in a statement of its own, after the call's lock is held:
        # the joined row above may predate a resume that committed while we waited.
        run_status = JudgeRun.objects.values_list("status", flat=True).get(pk=call.run_id)
        if run_status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            call.status = CallStatus.CANCELLED
            call.save(update_fields=["status", "updated_at"])
            return None
        if run_status != RunStatus.RUNNING:
            return None
        call.status = CallStatus.RUNNING
        call.attempts += 1
        call.started_at = timezone.now()
        call.finished_at = None
        call.error_message = call.error_kind = ""
        call.save(
            update_fields=[
                "status",
                "attempts",
                "started_at",
                "finished_at",
                "error_message",
                "error_kind",
                "updated_at",
            ]
        )
        return call


def judge_prices(family: str) -> tuple[Decimal, Decimal]:
    """(in, out) USD per million tokens of the family's response provider."""
    families = getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}
    setup = families.get(family) or {}
    return Decimal(str(setup.get("price_in", 0))), Decimal(str(setup.get("price_out", 0)))


def _send(call: JudgeCall) -> None:
    run = call.run
    config = judge_provider_configs().get(run.provider_family)
    if config is None:
        _finish(
            call.pk,
            status=CallStatus.FAILED,
            kind=NOT_CONFIGURED,
            error=f"No provider is configured for {run.provider_family} in this worker; set "
            f"HEARTBENCH_{run.provider_family.upper()}_* and retry the failed calls.",
        )
        return
    if run.model and run.model != config.model:
        config = config.with_options(model=run.model)
    materials = judge_materials(pair=call.pair, permutation=call.permutation)
    system, user = prompts.system_prompt(), prompts.user_prompt(materials)
    request = {
        "prompt_version": run.prompt_version,
        "provider": run.provider_family,
        "model": config.model,
        "system": system,
        "user": user,
        "schema": prompts.VERDICT_SCHEMA,
    }
    result = cached_client(config).complete_json(
        system=system,
        user=user,
        schema=prompts.VERDICT_SCHEMA,
        max_attempts=prompts.STRUCTURED_OUTPUT_ROUNDS,
    )
    # Recorded, with the call's totals, before the answer is looked at. The record keeps
    # the judge's request (what the calibration report and the run page read) in place
    # of the client's HTTP body.
    record_call(
        JudgeCallRecord,
        result=result,
        totals=(JudgeCall, call.pk),
        prices=judge_prices(run.provider_family),
        call_id=call.pk,
        request=storable(request),
    )
    if not result.ok:
        _finish(
            call.pk,
            status=CallStatus.FAILED,
            kind=result.error_kind or "internal_error",
            error=f"The judge gave no valid answer after "
            f"{counted(result.attempt_count, 'request')} in {counted(result.rounds, 'round')}: "
            f"{result.failure_reason}",
        )
        return
    try:
        content = check_judgment(result.parsed)
    except ComparisonError as problems:
        _finish(
            call.pk,
            status=CallStatus.FAILED,
            kind=INVALID_VERDICT,
            error="The judge's answer breaks the guideline: " + " ".join(problems.messages),
        )
        return
    letter = content["selected_letter"]
    candidate_id = call.permutation[COMPARISON_LETTERS.index(letter)]
    with transaction.atomic():
        locked = JudgeCall.objects.select_for_update().get(pk=call.pk)
        if locked.status != CallStatus.RUNNING:
            return  # another delivery of the same task stored it first
        JudgeVerdict.objects.create(call=locked, selected_candidate_id=candidate_id, **content)
        _set(locked, status=CallStatus.SUCCEEDED, kind="", error="")


def _finish(call_id: int, *, status: str, kind: str, error: str) -> None:
    with transaction.atomic():
        call = JudgeCall.objects.select_for_update().get(pk=call_id)
        if call.is_terminal:
            return
        _set(call, status=status, kind=kind, error=error)


def _set(call: JudgeCall, *, status: str, kind: str, error: str) -> None:
    call.status = status
    call.error_kind = kind[:40]
    call.error_message = storable(error)
    call.finished_at = timezone.now()
    call.save(update_fields=["status", "error_kind", "error_message", "finished_at", "updated_at"])
