"""Celery tasks of MCQ assembly and screening: they take ids and call a service.

Both are idempotent: a finished assembly run is left as it is, and an item version that
already has a finished screening is not screened twice. The services queue these tasks
(``dispatch_*``), so the tasks import the services when they run, not at import time.
"""

from celery import shared_task

from core.tasks import enqueue_on_commit


@shared_task(name="adjudication.mcq_assembly_run")
def mcq_assembly_run(run_id: int) -> str:
    from adjudication.mcq.services import item_assembly

    return item_assembly.mcq_assembly_run_execute(run_id=run_id).status


@shared_task(name="adjudication.mcq_screen_item")
def mcq_screen_item(item_id: int) -> str:
    from adjudication.mcq.services import item_screening

    screening = item_screening.mcq_screening_run(item_id=item_id)
    return screening.outcome if screening else "not_configured"


def dispatch_assembly_run(run_id: int) -> None:
    """Queue the run once it is committed; with no broker it stays queued (resumable)."""
    enqueue_on_commit(mcq_assembly_run, run_id, what=f"MCQ assembly run {run_id}")


def dispatch_screening(item_id: int) -> None:
    """Queue the item's screening once its version is committed."""
    enqueue_on_commit(mcq_screen_item, item_id, what=f"Screening of MCQ item {item_id}")
