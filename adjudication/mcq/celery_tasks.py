"""Celery tasks of MCQ assembly and screening: they take ids and call a service.

Both are idempotent: a finished assembly run is left as it is, and an item version that
already has a finished screening is not screened twice.
"""

import logging

from celery import shared_task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

logger = logging.getLogger(__name__)


@shared_task(name="adjudication.mcq_assembly_run")
def mcq_assembly_run(run_id: int) -> str:
    from adjudication.mcq import services as mcq_services

    return mcq_services.mcq_assembly_run_execute(run_id=run_id).status


@shared_task(name="adjudication.mcq_screen_item")
def mcq_screen_item(item_id: int) -> str:
    from adjudication.mcq import services as mcq_services

    screening = mcq_services.mcq_screening_run(item_id=item_id)
    return screening.outcome if screening else "not_configured"


def _enqueue(task, arg, what: str) -> None:
    try:
        task.delay(arg)
    except BrokerUnavailable:
        logger.warning("%s %s not queued: broker unreachable", what, arg)


def dispatch_assembly_run(run_id: int) -> None:
    transaction.on_commit(lambda: _enqueue(mcq_assembly_run, run_id, "MCQ assembly run"))


def dispatch_screening(item_id: int) -> None:
    transaction.on_commit(lambda: _enqueue(mcq_screen_item, item_id, "screening of MCQ item"))


def _on_item_revised(sender, item, version, **kwargs) -> None:
    # mcq_versions sends this after commit: an edited item is screened again in full
    # (seed 000 App. D.3.1, "Routing and resolution").
    dispatch_screening(item.pk)


def connect_mcq_workflow() -> None:
    """Called from AdjudicationConfig.ready()."""
    from adjudication.export.chain import register_chain_section
    from adjudication.mcq.selectors import chain_item_review, chain_screening
    from adjudication.mcq.versions import item_revised

    item_revised.connect(_on_item_revised, dispatch_uid="mcq_rescreen_revised_item")
    register_chain_section("screening", chain_screening)
    register_chain_section("item_review", chain_item_review)
