"""Celery tasks of candidate generation: they take ids and call a service."""

from celery import shared_task

from annotation.generation.services import transitions, units
from core.tasks import resend_when_stranded


@shared_task(name="annotation.execute_generation_unit", acks_late=True)
def execute_generation_unit(unit_id: int) -> str:
    """Run one generation unit's remaining stages. Idempotent: a redelivered task (after
    a worker was killed, say) resumes at the stage the unit reached and never creates a
    second candidate (see ``services.units.generation_unit_execute``)."""
    return units.generation_unit_execute(unit_id=unit_id).status


resend_when_stranded("annotation.execute_generation_unit", transitions.FLOW.stranded_units)
