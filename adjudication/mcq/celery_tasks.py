"""Celery tasks of MCQ assembly and screening: they take ids and call a service.

Each is idempotent: a finished assembly run is left as it is, a screening unit is
screened and its result stored once, and an item version that already has a finished
screening is not screened twice. The services queue these tasks by name
(``core.tasks.enqueue_on_commit``) and import nothing of this module.
"""

from celery import shared_task

from adjudication.mcq.services import item_assembly, item_screening, screening_runs
from core.tasks import resend_when_stranded


@shared_task(name="adjudication.mcq_assembly_run")
def mcq_assembly_run(run_id: int) -> str:
    return item_assembly.mcq_assembly_run_execute(run_id=run_id).status


@shared_task(name="adjudication.mcq_screen_item", acks_late=True)
def mcq_screen_item(item_id: int) -> str:
    """Screen an edited item's current version in a run of its own; a redelivered task
    takes up the version's open screening again."""
    screening = item_screening.mcq_screening_run(item_id=item_id)
    return screening.outcome if screening else "not_configured"


@shared_task(name="adjudication.mcq_screen_unit", acks_late=True)
def mcq_screen_unit(screening_id: int) -> str:
    """Screen one unit of a screening run (see ``item_screening.mcq_screening_unit_execute``)."""
    return item_screening.mcq_screening_unit_execute(screening_id=screening_id).status


resend_when_stranded(screening_runs.UNIT_TASK, screening_runs.FLOW.stranded_units)
