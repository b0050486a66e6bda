"""Celery tasks of scenario review: they take ids and call a service."""

from celery import shared_task

from annotation.scenario_review import blueprints


@shared_task(name="annotation.expand_scenario_blueprint")
def expand_scenario_blueprint(blueprint_id: int) -> str:
    """Expand a blueprint into a draft scenario. Redelivery is harmless: a blueprint that
    is no longer pending is left as it is (``blueprints.blueprint_expand``)."""
    return blueprints.blueprint_expand(blueprint_id=blueprint_id).status
