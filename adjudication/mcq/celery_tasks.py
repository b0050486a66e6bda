"""Celery tasks of MCQ assembly and screening: they take ids and call a service.

Both are idempotent: a finished assembly run is left as it is, and an item version that
already has a finished screening is not screened twice. The services queue these tasks
by name (``core.tasks.enqueue_on_commit``) and import nothing of this module.
"""

from celery import shared_task

from adjudication.mcq.services import item_assembly, item_screening


@shared_task(name="adjudication.mcq_assembly_run")
def mcq_assembly_run(run_id: int) -> str:
    return item_assembly.mcq_assembly_run_execute(run_id=run_id).status


@shared_task(name="adjudication.mcq_screen_item")
def mcq_screen_item(item_id: int) -> str:
    screening = item_screening.mcq_screening_run(item_id=item_id)
    return screening.outcome if screening else "not_configured"
