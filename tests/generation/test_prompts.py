"""What the generation pipeline actually sends (seed 000 App. D.1, B.2, L.5), read from the
requests the fake provider server recorded: the character block of App. B.2, the
re-ranking rule of at most 50, the temperature of each stage, and the prompt versions."""

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


def test_reranking_keeps_at_most_fifty_and_says_so(providers, fake_server):
    _, unit, _ = run_one_unit()
    rerank = by_stage(fake_server)["reranking"][0]
    assert "at most 50" in rerank.system and "never more than 50" in rerank.system
    assert "exactly 50" not in rerank.system
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


def test_new_runs_use_version_2_and_version_1_is_kept(providers, fake_server):
    run, _, _ = run_one_unit()
    latest = max(DEFAULT_VERSIONS)
    assert latest == 2
    assert [run.screening_prompt.number, run.reranking_prompt.number] == [2, 2]
    assert run.response_prompt.number == 2
    v1 = PromptVersion.objects.get(stage="reranking", number=1)
    assert "Return exactly {target} memories" in v1.system_template  # history, unchanged
