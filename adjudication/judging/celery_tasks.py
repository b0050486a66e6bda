"""Celery tasks of judge runs: they take ids and call a service."""

from celery import shared_task

from adjudication.judging.services import calls, runs
from core.tasks import resend_when_stranded


@shared_task(name="adjudication.execute_judge_call", acks_late=True)
def execute_judge_call(call_id: int) -> str:
    """Send one judge call and store its verdict. Idempotent: a call that already has its
    answer is left alone, and the verdict is written under the call's row lock, so a
    redelivered task never writes a second one (``services.calls.judge_call_execute``)."""
    return calls.judge_call_execute(call_id=call_id).status


resend_when_stranded("adjudication.execute_judge_call", runs.FLOW.stranded_units)
