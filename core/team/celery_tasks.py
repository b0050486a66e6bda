"""The worker's side of the team: sending mail, a thin task over the service."""

from celery import shared_task

from .services import mail_send


@shared_task(name="team.send_mail")
def send_mail(attempt_id: int, body: str) -> None:
    # Harmless when redelivered: an attempt that already ended is not sent again.
    mail_send(attempt_id=attempt_id, body=body)
