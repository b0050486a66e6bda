"""Screening and re-ranking at temperature 0 even when the provider's configuration sets
another (seed 000 App. L.5.1-2: "temperature=0 where supported")."""

import pytest

from annotation.generation.services.runs import generation_run_create, generation_run_start
from annotation.generation.services.units import generation_unit_execute
from tests.factories import UserFactory

from .helpers import frozen_character, scenario, stage_of

pytestmark = pytest.mark.django_db


def test_a_configured_temperature_does_not_override_the_activation_temperature(
    providers, fake_server, settings
):
    """Seed 000 App. L.5.1-2: screening and re-ranking run at temperature 0; a
    temperature set in the environment (the family's activation config) is not sent."""
    family = settings.HEARTBENCH_GENERATION_FAMILIES["gpt"]
    family["activation"] = family["activation"].with_options(temperature=0.8)
    frozen_character(ages=list(range(6, 16)) * 9)
    scenario(age=12)
    run = generation_run_create(user=UserFactory(), families=["gpt"])
    generation_run_start(run_id=run.pk)
    unit = generation_unit_execute(unit_id=run.units.get().pk)
    assert unit.status == "succeeded", unit.error_message
    sent = {}
    for request in fake_server.requests:
        sent.setdefault(stage_of(request), []).append(request.body.get("temperature"))
    assert sent["screening"] == [0] and sent["reranking"] == [0]
