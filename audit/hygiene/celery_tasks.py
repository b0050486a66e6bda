"""Celery tasks of release hygiene: they take ids and call a service.

``acks_late``: a task whose worker died is handed to another worker. The screen of a
character is idempotent (a unit already screened, or of a cancelled screen, is left as
it is), so a redelivered message changes nothing twice.
"""

from celery import shared_task

from audit.hygiene import services
from core.tasks import resend_when_stranded


@shared_task(name=services.TASK, acks_late=True)
def screen_release_hygiene(unit_id: int) -> str:
    return services.hygiene_unit_screen(unit_id=unit_id)


resend_when_stranded(services.TASK, services.FLOW.stranded_units)
