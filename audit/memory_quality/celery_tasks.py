"""Celery tasks of the memory quality audit: they take ids and call a service.

All are idempotent, so all are ``acks_late``: a task whose worker died is handed to
another worker (``CELERY_BROKER_TRANSPORT_OPTIONS``). A run that is over is left as it
is and a running one goes on with the characters not yet audited; a repair attempt
already recorded (or a case no longer under repair) is not made again; a memory with a
verdict on a criterion is not asked about twice. A repair or a classifier call of a run
at a spending limit is not made: resuming the run queues it again.
"""

from celery import shared_task
from django.db.models import Max
from django.db.models.functions import Coalesce, Greatest

from audit.memory_quality.models import AuditRun, AuditUnit, MemoryCase
from audit.memory_quality.services import classifier, repair_loop, runs
from core.llm_runs.models import RunStatus
from core.tasks import resend_when_stranded


@shared_task(name="audit.run_memory_audit", acks_late=True)
def run_memory_audit(run_id: int) -> str:
    return runs.audit_run_execute(run_id=run_id).status


@shared_task(name="audit.repair_memory", acks_late=True)
def repair_memory(case_id: int) -> bool:
    attempt = repair_loop.repair_attempt_run(case_id=case_id)
    return bool(attempt and attempt.passed)


@shared_task(name="audit.classify_memory", acks_late=True)
def classify_memory(run_id: int, memory_pk: int, criterion: int) -> str:
    result = classifier.classifier_check(run_id=run_id, memory_pk=memory_pk, criterion=criterion)
    return result.verdict if result is not None else "held at a spending limit"


def _stranded_runs():
    """(run id, last written) of the queued or running audit runs with characters still
    to audit: each should have its one message in the broker (a running run's is held,
    unacknowledged, by the worker auditing it)."""
    return (
        AuditRun.objects.filter(
            status__in=(RunStatus.PENDING, RunStatus.RUNNING),
            units__status=AuditUnit.Status.PENDING,
        )
        .annotate(written=Greatest("created_at", Coalesce(Max("units__updated_at"), "created_at")))
        .values_list("pk", "written")
        .distinct()
    )


resend_when_stranded(runs.TASK, _stranded_runs)


def _stranded_repairs():
    """(case id, last written) of the cases under repair in a finished run: each waits
    for its next repair step's message (a run stopped at a spending limit or cancelled
    is left: its resume queues its repairs)."""
    return MemoryCase.objects.filter(
        status=MemoryCase.Status.REPAIRING,
        run__status__in=(RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES),
    ).values_list("pk", "updated_at")


resend_when_stranded("audit.repair_memory", _stranded_repairs)
