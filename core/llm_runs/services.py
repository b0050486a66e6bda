"""The services every LLM-backed run shares (issue #33).

``record_call`` stores one ``llm.CallResult`` in a workflow's call-record model and adds
its tokens and cost to the unit that made it, atomically (one statement), before the caller
looks at the result: a worker killed after the call loses nothing it paid for.

``RunFlow`` is the one state machine of a run (``RunStatus``): start (pending →
running), cancel (waiting units cancelled at once, the run cancelling until the units a
worker holds stop, then cancelled), resume and retry (units back to waiting, the run
running again), and finish (finished, or finished with failures, once every unit is
final). Each workflow names its run and unit models, its error and how its messages
name a run; it keeps its own unit execution and queues its own tasks. A workflow's claim
asks ``claim_allowed`` before it takes up a waiting unit: a run at its budget or at its
provider's monthly cap stops at budget there (issue #36, ``spending``).

Lock order: run-level changes lock the run row first and then touch units; a unit's
own transitions lock only the unit row. Nothing takes a unit lock and then the run
lock in one transaction.
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import connections, models, router, transaction
from django.db.models import F
from django.utils import timezone

import llm
from core.llm_runs.models import ACTIVE, MILLION, AbstractCallRecord, RunStatus
from core.llm_runs.spending import spending_stop_reason
from core.providers import storable

__all__ = ["RunFlow", "call_cost", "call_details", "record_call"]


def call_cost(result: llm.CallResult, prices) -> Decimal:
    """The estimated USD cost of a call at ``prices`` = (in, out) USD per million tokens."""
    price_in, price_out = (Decimal(str(p)) for p in prices or (0, 0))
    return (Decimal(result.tokens_in) * price_in + Decimal(result.tokens_out) * price_out) / MILLION


def call_details(result: llm.CallResult, extra: dict | None = None) -> dict:
    """The record's ``details``: the workflow's own keys, then rounds, finish reason and
    the per-try records of the call."""
    # Read the few fields directly: ``result.as_dict()`` would deep-copy the whole
    # request and response too (tens of KB a call) only to keep these.
    return storable(
        {
            **(extra or {}),
            "endpoint": result.endpoint,
            "rounds": result.rounds,
            "finish_reason": result.finish_reason,
            "started_at": result.started_at,
            "demo": result.demo,
            "attempts": [attempt.as_dict() for attempt in result.attempts],
        }
    )


def record_call(
    record_model: type[models.Model],
    *,
    result: llm.CallResult,
    totals: tuple[type[models.Model], int] | None = None,
    prices=None,
    extra_details: dict | None = None,
    **fields,
):
    """Store ``result`` as a ``record_model`` row (an ``AbstractCall`` subclass) and, when
    ``totals`` = (unit model, unit id) is given, add its tokens and ``call_cost`` at
    ``prices`` to that unit's totals (``UnitCost``) atomically with it. ``fields``
    are the workflow's own columns (the unit, the stage or slot, ...) and override what
    is read from the result."""
    values = {
        "provider": result.provider,
        "model": result.model,
        "raw_response": storable(result.raw_response or ""),
        "parsed": storable(result.parsed) if result.ok else None,
        "ok": result.ok,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "latency_s": result.latency_s,
        "cost_usd": call_cost(result, prices),
        "error_kind": result.error_kind or "",
        "error_message": storable(result.error_message or ""),
        "details": call_details(result, extra_details),
    }
    if issubclass(record_model, AbstractCallRecord):
        values.update(
            prompt_hash=result.prompt_hash,
            request=storable(result.request or {}),
            attempt_count=result.attempt_count,
        )
    values.update(fields)
    if totals is None:
        return record_model.objects.create(**values)
    unit_model, unit_id = totals
    tokens, cost = (result.tokens_in, result.tokens_out), values["cost_usd"]
    if connections[router.db_for_write(record_model)].vendor == "postgresql":
        return _insert_adding_totals(
            record_model(**values), unit_model, unit_id, tokens=tokens, cost=cost
        )
    # The one-command demo's SQLite has no data-modifying CTE: two statements, one
    # transaction.
    with transaction.atomic():
        record = record_model.objects.create(**values)
        unit_model.objects.filter(pk=unit_id).update(
            tokens_in=F("tokens_in") + tokens[0],
            tokens_out=F("tokens_out") + tokens[1],
            cost_usd=F("cost_usd") + cost,
            updated_at=timezone.now(),
        )
    return record


def _insert_adding_totals(record, unit_model, unit_id: int, *, tokens, cost) -> models.Model:
    """INSERT ``record`` and add ``tokens`` and ``cost`` to the unit's totals in one
    statement (the UPDATE as a data-modifying CTE of the INSERT): as atomic as a
    transaction around the two, at one round trip to PostgreSQL instead of four, which
    is most of what recording a call costs a worker."""
    record_model = type(record)
    db = router.db_for_write(record_model)
    conn = connections[db]
    sql, fields = _insert_adding_totals_sql(record_model, unit_model, conn.vendor)
    # Every column prepared as ``create`` prepares it: ``pre_save`` stamps
    # ``created_at`` on the record, ``get_db_prep_save`` adapts JSON and the rest.
    insert_params = [f.get_db_prep_save(f.pre_save(record, True), conn) for f in fields]
    update_params = (*tokens, cost, timezone.now(), unit_id)
    with conn.cursor() as cursor:
        cursor.execute(sql, (*update_params, *insert_params))
        (record.pk,) = cursor.fetchone()
    record._state.adding, record._state.db = False, db
    return record


@functools.cache
def _insert_adding_totals_sql(record_model, unit_model, vendor: str) -> tuple[str, list]:
    """The statement of ``_insert_adding_totals``, written once per pair of models: the
    record's columns in model order, its id returned."""
    qn = connections[router.db_for_write(record_model)].ops.quote_name
    meta, unit_meta = record_model._meta, unit_model._meta
    fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field]
    if any(f.has_db_default() or f.generated for f in fields):
        # Such a column is written by the database, which a plain INSERT cannot ask for.
        raise TypeError(f"{meta.label}: a call record column has a database default")
    col = {name: qn(unit_meta.get_field(name).column) for name in _TOTALS}
    update = (
        f"UPDATE {qn(unit_meta.db_table)} SET "
        + ", ".join(f"{col[name]} = {col[name]} + %s" for name in _TOTALS[:3])
        + f", {col['updated_at']} = %s WHERE {qn(unit_meta.pk.column)} = %s"
    )
    insert = (
        f"INSERT INTO {qn(meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {qn(meta.pk.column)}"
    )
    return f"WITH totals AS ({update}) {insert}", fields


_TOTALS = ("tokens_in", "tokens_out", "cost_usd", "updated_at")


# --- the run state machine ----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RunFlow:
    """The transitions of one workflow's runs. Every method whose name ends in
    ``_locked`` expects the caller to hold the run's row lock (``lock``) inside a
    transaction. Units have the states pending, failed and cancelled (and their own
    running states); ``unit_model.TERMINAL`` names the final ones."""

    run_model: type[models.Model]
    unit_model: type[models.Model]
    error: type[Exception]
    #: How a message names a run: "Run 4", "Memory run 4", "Drafting job 4".
    label: str = "Run"
    #: The unit's foreign key to its run.
    run_field: str = "run"
    #: Columns a unit clears, beyond its error, when it waits again.
    reopen_fields: dict = field(default_factory=dict)
    #: Columns a waiting unit clears when its run is cancelled.
    cancel_fields: dict = field(default_factory=dict)
    #: The run's states where a workflow stores its own names (a judge run is a draft
    #: before it starts, queued once started, failed when it finished with failures).
    waiting: str = RunStatus.PENDING
    started: str = RunStatus.RUNNING
    active: tuple = ACTIVE
    with_failures: str = RunStatus.FINISHED_WITH_FAILURES
    #: A run resumed before it ever started is stamped started then.
    stamp_start_on_reopen: bool = True
    #: The unit's error column, and its last-change column ("" when it has none).
    unit_error_field: str = "error_message"
    unit_touched_field: str = "updated_at"
    #: The providers (``llm`` kinds, as call records name them) a run calls, for the
    #: lab's monthly caps (``core.llm_runs.spending``); None: no cap applies.
    providers: Callable | None = None

    def _touched(self) -> dict:
        return {self.unit_touched_field: timezone.now()} if self.unit_touched_field else {}

    # --- reading ---

    def units(self, run_id: int):
        return self.unit_model.objects.filter(**{f"{self.run_field}_id": run_id})

    def name(self, run) -> str:
        return f"{self.label} {run.pk}"

    def refusal(self, run, only: str, *, hint: str = "") -> Exception:
        """ "Run 4 is finished; only a run that has not started can be started." """
        state = run.get_status_display().lower()
        return self.error(f"{self.name(run)} is {state}; only {only}{hint or '.'}")

    def cancel_requested(self, *, run_id: int) -> bool:
        # Asked before every call a unit makes: a plain statement, written once.
        conn = connections[router.db_for_read(self.run_model)]
        with conn.cursor() as cursor:
            cursor.execute(_run_status_sql(self.run_model, conn.vendor), (run_id,))
            row = cursor.fetchone()
        return row is not None and row[0] in (RunStatus.CANCELLING, RunStatus.CANCELLED)

    def any_unit_open(self, run_id: int) -> bool:
        """Whether a unit of the run is not final yet (a plain statement, written once:
        every unit asks when it ends)."""
        conn = connections[router.db_for_read(self.unit_model)]
        terminal = tuple(self.unit_model.TERMINAL)
        sql = _open_unit_sql(self.unit_model, self.run_field, len(terminal), conn.vendor)
        with conn.cursor() as cursor:
            cursor.execute(sql, (run_id, *terminal))
            return cursor.fetchone() is not None

    # --- locking ---

    def lock(self, run_id, *, missing: str = ""):
        """The run's row, locked; ``missing`` is the refusal when there is none (without
        one, ``DoesNotExist`` is raised as is)."""
        try:
            return self.run_model.objects.select_for_update().get(pk=run_id)
        except self.run_model.DoesNotExist:
            if not missing:
                raise
            raise self.error(missing) from None

    # --- transitions ---

    def start_locked(self, run, *, only: str = "a run that has not started") -> list[int]:
        """pending → running; the ids of the units waiting, for the caller to queue."""
        if run.status != self.waiting:
            raise self.refusal(run, f"{only} can be started")
        run.status = self.started
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at"])
        return list(
            self.units(run.pk)
            .filter(status=self.unit_model.Status.PENDING)
            .order_by("pk")
            .values_list("pk", flat=True)
        )

    def cancel_locked(self, run) -> None:
        """Stop a pending, running or stopped run: units still waiting are cancelled now;
        units a worker holds stop at their next boundary (a call already sent is not
        abandoned), and the run is cancelled once they have."""
        if run.status not in (RunStatus.PENDING, RunStatus.RUNNING, RunStatus.STOPPED_AT_BUDGET):
            raise self.refusal(run, "a pending or running run can be cancelled")
        Status = self.unit_model.Status
        self.units(run.pk).filter(status=Status.PENDING).update(
            status=Status.CANCELLED, **self._touched(), **self.cancel_fields
        )
        run.status = RunStatus.CANCELLING
        run.save(update_fields=["status"])
        self.finish_locked(run)

    def failed_unit_ids_locked(self, run) -> list[int]:
        return list(
            self.units(run.pk)
            .select_for_update()
            .filter(status=self.unit_model.Status.FAILED)
            .order_by("pk")
            .values_list("pk", flat=True)
        )

    def reopen_locked(self, run, *, statuses=(), ids=None) -> None:
        """Units in ``statuses`` (or with ``ids``) wait again, their error cleared; the
        run runs again. The caller queues them."""
        units = self.units(run.pk)
        units = units.filter(pk__in=ids) if ids is not None else units.filter(status__in=statuses)
        units.update(
            status=self.unit_model.Status.PENDING,
            error_kind="",
            **{self.unit_error_field: ""},
            **self._touched(),
            **self.reopen_fields,
        )
        run.status = self.started
        run.finished_at = None
        fields = ["status", "finished_at"]
        stamps = self.stamp_start_on_reopen and "started_at" in {f.name for f in run._meta.fields}
        if stamps and run.started_at is None:
            run.started_at = timezone.now()
            fields.append("started_at")
        run.save(update_fields=fields)

    def finish_locked(self, run) -> None:
        """Give an active run whose units are all final its final status: cancelled
        when it was cancelling, else finished, with failures when a unit failed."""
        if run.status not in self.active:
            return
        units = self.units(run.pk)
        if units.exclude(status__in=self.unit_model.TERMINAL).exists():
            return
        if run.status == RunStatus.CANCELLING:
            run.status = RunStatus.CANCELLED
        elif units.filter(status=self.unit_model.Status.FAILED).exists():
            run.status = self.with_failures
        else:
            run.status = RunStatus.FINISHED
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "finished_at"])

    # --- spending limits (issue #36, ``core.llm_runs.spending``) ---

    def claim_allowed(self, run) -> bool:
        """Whether a worker may take up another unit of ``run`` (read by its claim, which
        saw it running). When its budget or a provider's monthly cap is reached, the run
        is stopped at budget with the reason and False is returned: the unit stays
        waiting, and the units other workers hold finish as usual."""
        if run.budget_usd is None and self.providers is None:
            return True
        reason = spending_stop_reason(self, run)
        if not reason:
            return True
        with transaction.atomic():
            run = self.lock(run.pk)
            if run.status == self.started:
                run.status = RunStatus.STOPPED_AT_BUDGET
                run.stop_reason = reason
                run.save(update_fields=["status", "stop_reason"])
        return False

    def held_at_spending_limit(self, unit) -> bool:
        """Whether a worker about to claim ``unit`` (read with its run) must leave it
        waiting: it is waiting, its run is running, and the run has just reached a
        spending limit (``claim_allowed``). A unit a worker had already taken up is not
        stopped halfway."""
        run = getattr(unit, self.run_field)
        return (
            unit.status == self.unit_model.Status.PENDING
            and run is not None
            and run.status == self.started
            and not self.claim_allowed(run)
        )

    def resume_locked(self, run, *, budget_usd) -> list[int]:
        """stopped at budget → running, with ``budget_usd`` as the run's budget (None: no
        budget); the ids of the units waiting, for the caller to queue. Refused when the
        run would stop again at once."""
        if run.status != RunStatus.STOPPED_AT_BUDGET:
            raise self.refusal(run, "a run stopped at its budget can be resumed this way")
        run.budget_usd = budget_usd
        reason = spending_stop_reason(self, run)
        if reason:
            raise self.error(f"{self.name(run)} would stop again at once. {reason}")
        run.status = self.started
        run.stop_reason = ""
        run.save(update_fields=["status", "stop_reason", "budget_usd"])
        return list(
            self.units(run.pk)
            .filter(status=self.unit_model.Status.PENDING)
            .order_by("pk")
            .values_list("pk", flat=True)
        )

    def stranded_units(self):
        """(unit id, last written) of the units of started runs that no worker has taken
        yet: each should have a message in the broker. Registered with
        ``core.tasks.resend_when_stranded`` by the workflow's task module, so a message a
        broker restart lost is sent again."""
        return self.unit_model.objects.filter(
            status=self.unit_model.Status.PENDING, **{f"{self.run_field}__status": self.started}
        ).values_list("pk", self.unit_touched_field or "pk")

    def finish_if_done(self, *, run_id: int) -> None:
        """After a unit ended: finish its run if it was the last one."""
        # Unlocked first look: every unit commits its own terminal state before it calls
        # this, so of two units finishing together the later one sees both done.
        if self.any_unit_open(run_id):
            return
        with transaction.atomic():
            self.finish_locked(self.lock(run_id))


@functools.cache
def _run_status_sql(run_model, vendor: str) -> str:
    qn = connections[router.db_for_read(run_model)].ops.quote_name
    meta = run_model._meta
    return (
        f"SELECT {qn(meta.get_field('status').column)} FROM {qn(meta.db_table)} "
        f"WHERE {qn(meta.pk.column)} = %s"
    )


@functools.cache
def _open_unit_sql(unit_model, run_field: str, terminal: int, vendor: str) -> str:
    qn = connections[router.db_for_read(unit_model)].ops.quote_name
    meta = unit_model._meta
    sql = f"SELECT 1 FROM {qn(meta.db_table)} WHERE {qn(meta.get_field(run_field).column)} = %s"
    if terminal:  # (a workflow whose units have no final state has every unit open)
        status = qn(meta.get_field("status").column)
        sql += f" AND NOT ({status} IN ({', '.join(['%s'] * terminal)}))"
    return sql + " LIMIT 1"
