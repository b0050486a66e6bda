"""Celery tasks of scenario review: they take ids and call a service."""

from celery import shared_task

from annotation.scenario_review import blueprints
from core.tasks import enqueue_on_commit


@shared_task(name="annotation.expand_scenario_blueprint")
def expand_scenario_blueprint(blueprint_id: int) -> str:
    """Expand a blueprint into a draft scenario. Redelivery is harmless: a blueprint that
    is no longer pending is left as it is (``blueprints.blueprint_expand``)."""
    return blueprints.blueprint_expand(blueprint_id=blueprint_id).status


def dispatch_blueprint_expansion(blueprint_id: int, *, on_unavailable=None) -> None:
    """Queue the expansion once the blueprint row is committed, so a worker can read it.

    ``on_unavailable(message)`` is called when the broker cannot be reached; the
    blueprint stays pending and can be queued again ("Queue the expansion again").
    """
    enqueue_on_commit(
        expand_scenario_blueprint,
        blueprint_id,
        what=f"Blueprint {blueprint_id}",
        on_unavailable=on_unavailable,
    )
