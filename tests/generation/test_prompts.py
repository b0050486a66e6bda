"""What the generation pipeline actually sends (seed 000 App. D.1, B.2, L.5), read from the
requests the fake provider server recorded: the character block of App. B.2, the
re-ranking rule of exactly 50, the temperature of each stage, and the prompt versions."""

import pytest

from annotation.generation.default_prompts import DEFAULT_VERSIONS
from annotation.generation.models import PromptVersion
from annotation.generation.services.runs import generation_run_create, generation_run_start
from annotation.generation.services.units import generation_unit_execute
from llm.testing.replies import http_error
from tests.factories import UserFactory

from .helpers import frozen_character, scenario, stage_of

pytestmark = pytest.mark.django_db


def run_one_unit(family="claude"):
    character = frozen_character(ages=list(range(6, 16)) * 9)  # 63 eligible at age 12
    scenario(age=12)
    run = generation_run_create(user=UserFactory(), families=[family])
    generation_run_start(run_id=run.pk)
    unit = generation_unit_execute(unit_id=run.units.get().pk)
    return run, unit, character.versions.get()


def by_stage(server):
    out = {}
    for request in server.requests:
        out.setdefault(stage_of(request), []).append(request)
    return out


def test_every_stage_sends_the_b2_character_block(providers, fake_server):
    _, unit, profile = run_one_unit()
    assert unit.status == "succeeded", unit.error_message
    requests = by_stage(fake_server)
    assert set(requests) == {"screening", "reranking", "response"}
    for stage, sent in requests.items():
        text = sent[0].raw_body
        # App. B.2: the ID and label, the Big Five vector, description, self-value logic.
        assert "ID: CHAR_01" in text, stage
        assert f"Name: {profile.construction_label}" in text, stage
        assert "Big Five (0 to 1): Openness" in text and "Neuroticism" in text, stage
        assert profile.description[:40] in text, stage
        assert profile.self_value_logic[:40] in text, stage
        # ... and nothing B.2 leaves to memory generation: occupation, behavioural patterns.
        assert "Occupation:" not in text and profile.occupation not in text, stage


def test_reranking_asks_for_exactly_fifty_and_keeps_no_more(providers, fake_server):
    """Seed 000 App. L.5.2: "Output exactly {target} entries - no more, no fewer"; the
    target is 50 (App. D.1), and re-ranking runs only when more than 50 survived."""
    _, unit, _ = run_one_unit()
    rerank = by_stage(fake_server)["reranking"][0]
    assert "Return exactly 50 memories, no more and no fewer" in rerank.system
    assert "Choose and rank exactly 50 memories" in rerank.turns()[0][1]
    assert "at most" not in rerank.system and "at most" not in rerank.turns()[0][1]
    assert rerank.schema()["properties"]["activated_memories"]["maxItems"] == 50
    assert len(unit.activated_memory_ids) == 50


@pytest.mark.parametrize(
    ("family", "read"),
    [
        ("claude", lambda body: body.get("temperature")),
        ("gpt", lambda body: body.get("temperature")),
        ("gemini", lambda body: body.get("generationConfig", {}).get("temperature")),
    ],
)
def test_activation_runs_at_temperature_0_and_the_response_at_the_default(
    providers, fake_server, family, read
):
    run_one_unit(family)
    requests = by_stage(fake_server)
    # App. L.5.1-2: screening and re-ranking at temperature 0 where supported.
    assert [read(r.body) for r in requests["screening"] + requests["reranking"]] == [0, 0]
    # The paper gives no temperature for the response (L.5.3): the endpoint's default.
    assert read(requests["response"][0].body) is None


def test_an_endpoint_refusing_temperature_is_asked_at_its_default(providers, fake_server, script):
    script.faults["screening"] = [
        http_error(400, body='{"error": {"message": "temperature is not supported"}}')
    ]
    _, unit, _ = run_one_unit()
    assert unit.status == "succeeded", unit.error_message
    first, second = by_stage(fake_server)["screening"][:2]
    assert first.body["temperature"] == 0 and "temperature" not in second.body


def test_new_runs_use_version_3_and_earlier_versions_are_kept(providers, fake_server):
    run, _, _ = run_one_unit()
    latest = max(DEFAULT_VERSIONS)
    assert latest == 3
    assert [run.screening_prompt.number, run.reranking_prompt.number] == [3, 3]
    assert run.response_prompt.number == 3
    v1 = PromptVersion.objects.get(stage="reranking", number=1)
    assert "Return exactly {target} memories" in v1.system_template  # history, unchanged
    v2 = PromptVersion.objects.get(stage="reranking", number=2)
    assert "Return at most {target} memories" in v2.system_template  # history, unchanged
