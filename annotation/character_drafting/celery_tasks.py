"""Celery tasks of character drafting: they take ids and call a service."""

from celery import shared_task

from annotation.character_drafting.services import execution, jobs
from core.tasks import resend_when_stranded


@shared_task(name="annotation.execute_character_draft", acks_late=True)
def execute_character_draft(draft_id: int) -> str:
    """Draft one character. Idempotent: a redelivered task (after a worker was killed,
    say) finds a finished draft finished and returns; a draft two deliveries work on at
    once still gets one profile version, written under the draft's row lock (see
    ``services.execution.character_draft_execute``)."""
    return execution.character_draft_execute(draft_id=draft_id).status


# A draft whose message a broker restart lost is sent again by a worker that
# (re)connects (core.tasks.resend_stranded).
resend_when_stranded("annotation.execute_character_draft", jobs.stranded_drafts)
