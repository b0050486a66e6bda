"""Celery tasks of the memory quality audit: they take ids and call a service.

All are idempotent: a finished run is left as it is, a repair attempt already recorded
(or a case no longer under repair) is not made again, and a memory classified on a
criterion already is not asked about twice.
"""

from celery import shared_task

from audit.memory_quality.services import classifier, repair_loop, runs
from core.tasks import enqueue_on_commit


@shared_task(name="audit.run_memory_audit")
def run_memory_audit(run_id: int) -> str:
    return runs.audit_run_execute(run_id=run_id).status


@shared_task(name="audit.repair_memory")
def repair_memory(case_id: int) -> bool:
    attempt = repair_loop.repair_attempt_run(case_id=case_id)
    return bool(attempt and attempt.passed)


@shared_task(name="audit.classify_memory")
def classify_memory(run_id: int, memory_pk: int, criterion: int) -> str:
    return classifier.classifier_check(
        run_id=run_id, memory_pk=memory_pk, criterion=criterion
    ).verdict


def dispatch_audit_run(run_id: int) -> None:
    """Queue the run once its row is committed, so a worker can read it."""
    enqueue_on_commit(run_memory_audit, run_id, what=f"Audit run {run_id}")


def dispatch_repair_attempts(case_ids) -> None:
    """Queue one repair attempt per case once the cases are committed."""
    enqueue_on_commit(
        repair_memory, what="The repair of audit cases", calls=[(pk,) for pk in case_ids]
    )


def dispatch_classifications(run_id: int, memory_pks, criterion: int) -> None:
    """Queue one classifier call per memory once the caller's transaction commits."""
    enqueue_on_commit(
        classify_memory,
        what=f"The classification of run {run_id} on criterion {criterion}",
        calls=[(run_id, pk, criterion) for pk in memory_pks],
    )
