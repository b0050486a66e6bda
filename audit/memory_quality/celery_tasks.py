"""Celery tasks of the memory quality audit: they take ids and call a service.

All are idempotent: a finished run is left as it is, a repair attempt already recorded
(or a case no longer under repair) is not made again, and a memory classified on a
criterion already is not asked about twice.
"""

from celery import shared_task

from audit.memory_quality.services import classifier, repair_loop, runs


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
