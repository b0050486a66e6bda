"""State changes of generation units and runs, each under its row lock.

A unit's stages each persist their result before the next begins (``stage_reached``),
so a redelivered task, a retried unit or a task whose worker was killed resumes at the
first stage without a stored result.

A run's own transitions are the framework's (``FLOW``, ``core.llm_runs``). Lock order:
a unit's transitions lock the unit row only; run-level changes
(``runs.generation_run_cancel``, ``run_finish_if_done``) lock the run row first and then
touch units. Nothing takes a unit lock and then the run lock in one transaction.
"""

import functools

from django.db import connections, router, transaction
from django.utils import timezone

from annotation.generation.models import GenerationRun, GenerationStage, GenerationUnit
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.unit_read import CLAIM_RELATED, unit_with_related
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


def run_providers(run: GenerationRun) -> set[str]:
    """The providers a run's families call (for the lab's monthly caps)."""
    configs = generation_family_configs()
    return {
        configs[family][role].kind.value
        for family in run.families or []
        if family in configs
        for role in ("response", "activation")
    }


FLOW = RunFlow(
    run_model=GenerationRun,
    unit_model=GenerationUnit,
    error=GenerationError,
    providers=run_providers,
)


class Stopped(Exception):
    """The unit was cancelled, or finished by another delivery of the same task."""


# --- units ----------------------------------------------------------------------------


def unit_claim(*, unit_id: int) -> GenerationUnit | None:
    """The unit, marked running its next stage; None when there is nothing to run (it
    is finished, or its run is not running; a unit of a cancelled run is cancelled)."""
    # The common case without a lock wait: read the unit with what its stages need, then
    # claim it by an UPDATE that applies only if the unit is still exactly as read (no
    # other delivery took it, nobody cancelled it meanwhile). The run's status is read
    # without its lock, as the locked path below does.
    unit = unit_with_related(unit_id)
    if unit.is_terminal:
        return None  # a final unit changes only by a retry, which queues it again
    if FLOW.held_at_spending_limit(unit):
        return None  # it waits for its run to be resumed (issue #36)
    if unit.run.status == RunStatus.RUNNING:
        status, now = RUNNING_STATUS[NEXT_STAGE[unit.stage_reached]], timezone.now()
        claimed = _update_unit(
            unit_id,
            {
                "attempts": unit.attempts + 1,
                "status": status,
                "error_kind": "",
                "error_message": "",
                "updated_at": now,
            },
            unless_changed={
                "status": unit.status,
                "stage_reached": unit.stage_reached,
                "attempts": unit.attempts,
            },
        )
        if claimed:
            unit.attempts += 1
            unit.status, unit.error_kind, unit.error_message = status, "", ""
            unit.updated_at = now
            return unit
    # Otherwise its run is not running, or the unit changed meanwhile: decide under the
    # unit's row lock.
    with transaction.atomic():
        unit = (
            GenerationUnit.objects.select_for_update(of=("self",))
            .select_related(*CLAIM_RELATED)
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


def live_unit_update(unit_id: int, **fields) -> None:
    """Write ``fields`` to the unit in one UPDATE, which holds the unit's row lock until
    the surrounding transaction ends; raises Stopped when another delivery finished it
    (the UPDATE applies only while the unit is not final)."""
    if not _update_unit(unit_id, {"updated_at": timezone.now(), **fields}, live=True):
        raise Stopped


def _update_unit(unit_id: int, values: dict, *, unless_changed=None, live=False) -> int:
    """UPDATE the unit's ``values`` where it still has the ``unless_changed`` values
    (and, when ``live``, is not final); the number of rows changed (0 or 1).

    The units' hot path (the claim and every stage's result) runs this several times a
    call, so the statement is plain SQL written once per set of columns; each value is
    prepared as ``QuerySet.update`` prepares it (``Field.get_db_prep_save``)."""
    conn = connections[router.db_for_write(GenerationUnit)]
    where = unless_changed or {}
    sql = _update_sql(tuple(values), tuple(where), live, conn.vendor)
    field = GenerationUnit._meta.get_field
    params = [field(name).get_db_prep_save(v, conn) for name, v in values.items()]
    params.append(unit_id)
    params.extend(field(name).get_db_prep_save(v, conn) for name, v in where.items())
    if live:
        params.extend(GenerationUnit.TERMINAL)
    with conn.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


@functools.cache
def _update_sql(names: tuple, where: tuple, live: bool, vendor: str) -> str:
    qn = connections[router.db_for_write(GenerationUnit)].ops.quote_name
    meta = GenerationUnit._meta

    def col(name: str) -> str:
        return qn(meta.get_field(name).column)

    sql = (
        f"UPDATE {qn(meta.db_table)} SET {', '.join(f'{col(n)} = %s' for n in names)} "
        f"WHERE {qn(meta.pk.column)} = %s"
    )
    sql += "".join(f" AND {col(n)} = %s" for n in where)
    if live:
        terminal = ", ".join(["%s"] * len(GenerationUnit.TERMINAL))
        sql += f" AND NOT ({col('status')} IN ({terminal}))"
    return sql


def unit_advance(unit: GenerationUnit, *, stage_reached: str, **fields) -> GenerationUnit:
    """Store a stage's result and move to the next stage, in one statement."""
    following = NEXT_STAGE.get(stage_reached)
    status = RUNNING_STATUS[following] if following else UnitStatus.SUCCEEDED
    live_unit_update(unit.pk, stage_reached=stage_reached, status=status, **fields)
    unit.stage_reached, unit.status = stage_reached, status
    for name, value in fields.items():
        setattr(unit, name, value)
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
