"""Re-ranking with reasoning switched off (seed 000 App. L.5.2: "with reasoning explicitly
disabled"), read from the request bodies the fake provider server received."""

import pytest

from annotation.generation.services.runs import generation_run_create, generation_run_start
from annotation.generation.services.units import generation_unit_execute
from tests.factories import UserFactory

from .helpers import frozen_character, scenario, stage_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("family", "read", "disabled"),
    [
        ("gpt", lambda body: body.get("reasoning_effort"), "none"),
        ("claude", lambda body: body.get("thinking"), {"type": "disabled"}),
        (
            "gemini",
            lambda body: body["generationConfig"].get("thinkingConfig"),
            {"thinkingBudget": 0},
        ),
    ],
)
def test_the_reranking_call_disables_reasoning_in_each_providers_field(
    providers, fake_server, family, read, disabled
):
    """Seed 000 App. L.5.2: re-ranking runs with reasoning explicitly disabled, in the
    provider's own field; screening and the response leave the model's default."""
    frozen_character(ages=list(range(6, 16)) * 9)  # 63 eligible memories: re-ranking runs
    scenario(age=12)
    run = generation_run_create(user=UserFactory(), families=[family])
    generation_run_start(run_id=run.pk)
    unit = generation_unit_execute(unit_id=run.units.get().pk)
    assert unit.status == "succeeded", unit.error_message
    sent = {}
    for request in fake_server.requests:
        sent.setdefault(stage_of(request), []).append(read(request.body))
    assert sent["reranking"] == [disabled]
    assert set(map(repr, sent["screening"] + sent["response"])) == {"None"}
