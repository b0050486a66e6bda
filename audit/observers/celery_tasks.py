"""Celery tasks of observer runs: they take ids and call a service.

One task per unit, ``acks_late``: a task whose worker died is handed to another, and the
service stores at most one set of ratings per unit (``services.observer_unit_execute``),
so a redelivery costs a call, never a second set of rows.
"""

from celery import shared_task

from audit.observers.services import FLOW, TASK, observer_unit_execute
from core.tasks import resend_when_stranded


@shared_task(name=TASK, acks_late=True)
def observe_character(unit_id: int) -> str:
    return observer_unit_execute(unit_id=unit_id).status


resend_when_stranded(TASK, FLOW.stranded_units)
