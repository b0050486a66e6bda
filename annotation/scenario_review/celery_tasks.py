"""Celery tasks of the construction-stage reviews: they take ids and call a service."""

import logging

from celery import shared_task
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable

from annotation.profile_review import services as review_services

logger = logging.getLogger(__name__)


@shared_task(name="annotation.expand_scenario_blueprint")
def expand_scenario_blueprint(blueprint_id: int) -> str:
    """Expand a blueprint into a draft scenario. Redelivery is harmless: a blueprint that
    is no longer pending is left as it is (``review_services.blueprint_expand``)."""
    return review_services.blueprint_expand(blueprint_id=blueprint_id).status


def dispatch_blueprint_expansion(blueprint_id: int, *, on_unavailable=None) -> None:
    """Queue the expansion once the blueprint row is committed, so a worker can read it.

    ``on_unavailable(message)`` is called when the broker cannot be reached; the
    blueprint stays pending and can be queued again.
    """

    def enqueue():
        try:
            expand_scenario_blueprint.delay(blueprint_id)
        except BrokerUnavailable:
            logger.warning("blueprint %s saved but not queued: broker unreachable", blueprint_id)
            if on_unavailable is not None:
                on_unavailable(
                    f"Blueprint {blueprint_id} is saved but its expansion could not be queued: "
                    "the task broker is not reachable. Start Redis and a Celery worker, then "
                    "press “Queue the expansion again”."
                )

    transaction.on_commit(enqueue)
