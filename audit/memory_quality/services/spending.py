"""The spending limits of an audit run's LLM calls (issue #36, ``core.llm_runs.spending``).

An audit run's units (one per character) run the pattern checks, which cost nothing; its
LLM calls come after them, while the run is finished: the repair loop's attempts (each a
rewrite and, with a classifier configured, its re-check) and the classifier passes an
admin queues. So the claim guard of the framework (``RunFlow.held_at_spending_limit``,
which holds a waiting unit of a running run) cannot hold them; ``audit_llm_call_held``
is its counterpart for this phase, asked by every repair attempt and classifier call
before it calls: once the run's recorded cost (its units' ``cost_usd``) reaches its
budget, or a provider it uses reaches the lab's monthly cap, the run is stopped at
budget with the reason, and the call is not made: the case stays under repair, the
memory without a verdict. Calls already in flight finish and are recorded.

``audit_run_budget_resume`` resumes such a run with a new budget (``RunFlow.resume_locked``,
refused while the limit still holds): the run is finished again (with failures when a
character failed) and the held work is queued: every case still under repair, and every
memory without a verdict on a criterion the classifier was started for.
"""

from django.db import transaction

from annotation.corpus.models import Memory
from audit.memory_quality.models import AuditEvent, AuditRun, ClassifierResult, MemoryCase
from audit.memory_quality.services.records import log_event, require_role
from audit.memory_quality.services.runs import FLOW, budget_value, queue_run
from core.llm_runs.models import RunStatus
from core.llm_runs.spending import spending_stop_reason
from core.roles import Role
from core.tasks import enqueue_on_commit

__all__ = ["LLM_PHASE", "audit_llm_call_held", "audit_run_budget_resume"]

#: The states of a run whose LLM calls go on: its pattern checks are over.
LLM_PHASE = (RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES)


def audit_llm_call_held(*, run_id: int) -> bool:
    """Whether a repair attempt or a classifier call of the run must not call now: the
    run is stopped at a spending limit, or has just reached one (it is stopped here,
    saying why). A run in any other state is not held here (its calls were queued before
    a retry reopened it; they go on as before)."""
    run = AuditRun.objects.get(pk=run_id)
    if run.status == RunStatus.STOPPED_AT_BUDGET:
        return True
    if run.status not in LLM_PHASE:
        return False
    reason = spending_stop_reason(FLOW, run)
    if not reason:
        return False
    with transaction.atomic():
        run = FLOW.lock(run_id)
        if run.status in LLM_PHASE:
            run.status = RunStatus.STOPPED_AT_BUDGET
            run.stop_reason = reason
            run.save(update_fields=["status", "stop_reason"])
            log_event(actor=None, action="run_stopped_at_budget", run=run, reason=reason)
        return run.status == RunStatus.STOPPED_AT_BUDGET


@transaction.atomic
def audit_run_budget_resume(*, run_id: int, budget_usd, user=None) -> AuditRun:
    """stopped at budget → finished again, with ``budget_usd`` as the run's budget (None:
    none), and its held LLM work queued once this commits. Refused while the run would
    stop again at once."""
    if user is not None:
        require_role(user, Role.ADMIN, "resume an audit run")
    run = FLOW.lock(run_id, missing=f"There is no audit run {run_id}.")
    waiting_units = FLOW.resume_locked(run, budget_usd=budget_value(budget_usd))
    log_event(actor=user, action="run_resumed_at_budget", run=run, budget=str(run.budget_usd))
    if waiting_units:
        queue_run(run)  # characters still to audit: the run's end queues the repairs
        return run
    FLOW.finish_locked(run)
    _queue_held_work(run)
    return run


def _queue_held_work(run: AuditRun) -> None:
    repairing = run.cases.filter(status=MemoryCase.Status.REPAIRING).order_by("pk")
    enqueue_on_commit(
        "audit.repair_memory",
        what="The repair of audit cases",
        calls=[(pk,) for pk in repairing.values_list("pk", flat=True)],
    )
    started = (
        AuditEvent.objects.filter(run=run, action="classifier_started")
        .order_by("pk")
        .values_list("details__criterion", flat=True)
    )
    memories = Memory.objects.all()
    if run.character_keys:
        memories = memories.filter(character__key__in=run.character_keys)
    for criterion in dict.fromkeys(started):
        # Held calls left no verdict; a failed call's verdict stays (asking again is the
        # admin's choice: the classifier button asks the failed ones again).
        asked = ClassifierResult.objects.filter(run=run, criterion=criterion).values("memory_id")
        ids = memories.exclude(pk__in=asked).order_by("pk").values_list("pk", flat=True)
        enqueue_on_commit(
            "audit.classify_memory",
            what=f"The classification of run {run.pk} on criterion {criterion}",
            calls=[(run.pk, pk, criterion) for pk in ids],
        )
