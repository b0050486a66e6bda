"""State changes of generation units and runs, each under its row lock.

A unit's stages each persist their result before the next begins (``stage_reached``),
so a redelivered task, a retried unit or a task whose worker was killed resumes at the
first stage without a stored result.

A run's own transitions are the framework's (``FLOW``, ``core.llm_runs``). Lock order:
a unit's transitions lock the unit row only; run-level changes
(``runs.generation_run_cancel``, ``run_finish_if_done``) lock the run row first and then
touch units. Nothing takes a unit lock and then the run lock in one transaction.
"""

from django.db import transaction

from annotation.generation.models import GenerationRun, GenerationStage, GenerationUnit
from core.llm_runs.services import RunFlow

Stage = GenerationStage
UnitStatus = GenerationUnit.Status
RunStatus = GenerationRun.Status

# stage_reached -> the stage that runs next, and the unit status while it runs
NEXT_STAGE = {
    "": Stage.SCREENING,
    Stage.SCREENING: Stage.RERANKING,
    Stage.RERANKING: Stage.RESPONSE,
}
RUNNING_STATUS = {
    Stage.SCREENING: UnitStatus.SCREENING,
    Stage.RERANKING: UnitStatus.RERANKING,
    Stage.RESPONSE: UnitStatus.RESPONDING,
}


class GenerationError(Exception):
    """A generation request that cannot be carried out as asked."""


FLOW = RunFlow(run_model=GenerationRun, unit_model=GenerationUnit, error=GenerationError)


class Stopped(Exception):
    """The unit was cancelled, or finished by another delivery of the same task."""


# --- units ----------------------------------------------------------------------------


def unit_claim(*, unit_id: int) -> GenerationUnit | None:
    """The unit, marked running its next stage; None when there is nothing to run (it
    is finished, or its run is not running; a unit of a cancelled run is cancelled)."""
    with transaction.atomic():
        unit = (
            GenerationUnit.objects.select_for_update(of=("self",))
            .select_related("run", "character", "scenario", "profile_version__character")
            .get(pk=unit_id)
        )
        if unit.is_terminal:
            return None
        if unit.run.status in (RunStatus.CANCELLING, RunStatus.CANCELLED):
            unit.status = UnitStatus.CANCELLED
            unit.save(update_fields=["status", "updated_at"])
            cancelled_run = unit.run_id
        elif unit.run.status != RunStatus.RUNNING:
            return None
        else:
            unit.attempts += 1
            unit.status = RUNNING_STATUS[NEXT_STAGE[unit.stage_reached]]
            unit.error_kind = unit.error_message = ""
            unit.save(
                update_fields=["attempts", "status", "error_kind", "error_message", "updated_at"]
            )
            return unit
    run_finish_if_done(run_id=cancelled_run)
    return None


cancel_requested = FLOW.cancel_requested


def locked_live_unit(unit_id: int) -> GenerationUnit:
    """The unit's row, locked; raises Stopped when another delivery finished it."""
    unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
    if unit.is_terminal:
        raise Stopped
    return unit


def unit_advance(unit: GenerationUnit, *, stage_reached: str, **fields) -> GenerationUnit:
    """Store a stage's result and move to the next stage, in one transaction."""
    with transaction.atomic():
        locked = locked_live_unit(unit.pk)
        locked.stage_reached = stage_reached
        following = NEXT_STAGE.get(stage_reached)
        locked.status = RUNNING_STATUS[following] if following else UnitStatus.SUCCEEDED
        for name, value in fields.items():
            setattr(locked, name, value)
        locked.save(update_fields=["stage_reached", "status", "updated_at", *fields])
    for name in ("stage_reached", "status", *fields):
        setattr(unit, name, getattr(locked, name))
    return unit


def unit_fail(*, unit_id: int, kind: str, message: str) -> None:
    with transaction.atomic():
        unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
        if unit.is_terminal:
            return
        unit.status = UnitStatus.FAILED
        unit.error_kind = kind[:40]
        unit.error_message = message
        unit.save(update_fields=["status", "error_kind", "error_message", "updated_at"])


def unit_cancel(*, unit_id: int) -> None:
    with transaction.atomic():
        unit = GenerationUnit.objects.select_for_update().get(pk=unit_id)
        if not unit.is_terminal:
            unit.status = UnitStatus.CANCELLED
            unit.save(update_fields=["status", "updated_at"])


# --- runs -----------------------------------------------------------------------------

run_finish_if_done = FLOW.finish_if_done
run_finish_locked = FLOW.finish_locked
