"""Celery tasks of memory generation: they take ids and call a service."""

from celery import shared_task

from annotation.memory_generation.services import batches
from core.tasks import resend_when_stranded


@shared_task(name="annotation.execute_memory_batch", acks_late=True)
def execute_memory_batch(batch_id: int) -> str:
    """Fill one memory batch's empty slots, then send the run's next pending batch.
    Idempotent: a redelivered task (after a worker was killed, say) asks only for the
    slots still empty and never stores a slot twice (``services.batches``)."""
    return batches.memory_batch_execute(batch_id=batch_id, send_next=True).status


# A batch that ends while the broker is down cannot send the next ones; a worker that
# (re)connects sends them (core.tasks.resend_stranded).
resend_when_stranded("annotation.execute_memory_batch", batches.stranded_batches)
