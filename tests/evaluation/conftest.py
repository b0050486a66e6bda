"""A small benchmark for the evaluation tests: four characters with frozen profiles and
memories on both sides of the scenario age, two scenarios, one final item per
(character, scenario) whose options are the other characters' references."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from core.roles import Role
from evaluation import services
from evaluation.models import Setting
from llm.testing.fake_server import FakeProviderServer
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

FROZEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FAMILIES = ("gemini", "claude", "gpt")
SCENARIO_AGE = 10
LATE_WORD = "zeppelinfuture"


def build_corpus(n_characters=4, n_scenarios=2):
    characters = []
    for n in range(1, n_characters + 1):
        character = CharacterFactory(key=f"CHAR_{n:02d}")
        ProfileVersionFactory(
            character=character,
            number=1,
            construction_label=f"LABEL_{n}_ARCHETYPE",
            occupation=f"Occupation number {n}",
            description=f"Character {n} description: a careful person who plans every detail.",
            self_value_logic=f"Character {n} logic: if I plan for everything, no one can blame me.",
            core_patterns=[f"char {n} pattern {i}: an observable habit {i}" for i in range(1, 9)],
            frozen_at=FROZEN,
        )
        for seq, age in enumerate((6, 8, 9, 10, 14, 20), start=1):
            late = age > SCENARIO_AGE
            MemoryFactory(
                character=character,
                sequence=seq,
                event_age=age,
                content_full=(
                    f"Memory {seq} of char {n}: the teacher, the plants, the trip and the promise. "
                    + (f"{LATE_WORD} teacher plants trip promise " * 5 if late else "")
                ),
                context=f"Context of memory {seq} of char {n}, withheld from prompts.",
                psych_conclusion=f"Psych conclusion {seq} of char {n}: withheld annotation.",
            )
        characters.append(character)
    scenarios = [
        ScenarioFactory(
            scenario_id=f"SCN_SCHOOL_AGE_{s}",
            age=SCENARIO_AGE,
            name=f"Scenario {s}",
            description_for_agent="The teacher trusted you with the plants before the trip.",
        )
        for s in range(1, n_scenarios + 1)
    ]
    items = []
    for s_index, scenario in enumerate(scenarios):
        refs = {
            c.key: ReferenceResponse.objects.create(
                character=c,
                scenario=scenario,
                summary="s",
                final_decision=(
                    f"I am {c.key[-2:]} and in {scenario.scenario_id} I water the plants my way."
                ),
                decision_type=ReferenceResponse.DecisionType.IMPORTED,
                source_family=FAMILIES[(int(c.key[-2:]) + s_index) % 3],
            )
            for c in characters
        }
        for c_index, character in enumerate(characters):
            others = [k for k in refs if k != character.key]
            # the key's position rotates so that keys differ across items
            position = (c_index + s_index) % 4
            slots = list(others)
            slots.insert(position, character.key)
            item = McqItem.objects.create(
                question_id=f"{scenario.scenario_id}__{character.key}",
                character=character,
                scenario=scenario,
                stage="school_age",
                correct_answer="ABCD"[position],
                reference=refs[character.key],
                status=McqItem.Status.FINAL,
            )
            for i, key in enumerate(slots):
                McqOption.objects.create(
                    item=item,
                    label="ABCD"[i],
                    content=refs[key].final_decision,
                    is_correct=i == position,
                    source_character=key,
                )
            items.append(item)
    return {"characters": characters, "scenarios": scenarios, "items": items}


@pytest.fixture
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def admin_user(role_groups):
    return UserFactory(roles=[Role.ADMIN])


@pytest.fixture
def corpus(db):
    return build_corpus()


@pytest.fixture
def fake_server():
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def fake_model(fake_server, monkeypatch):
    """Evaluation model ``fake`` = the fake server's OpenAI route, in this process."""
    for name, value in fake_env(fake_server).items():
        monkeypatch.setenv(name, value)
    return fake_server


def fake_env(server, *, kind="openai", timeout=5.0):
    return {
        "HEARTBENCH_EVALUATION_MODELS": "FAKE",
        "HEARTBENCH_EVAL_FAKE_KIND": kind,
        "HEARTBENCH_EVAL_FAKE_BASE_URL": server.base_url(kind),
        "HEARTBENCH_EVAL_FAKE_MODEL": "fake-eval",
        "HEARTBENCH_EVAL_FAKE_API_KEY": "test-key",
        "HEARTBENCH_EVAL_FAKE_TIMEOUT": str(timeout),
        "HEARTBENCH_EVAL_FAKE_MAX_RETRIES": "1",
        "HEARTBENCH_EVAL_FAKE_BACKOFF_BASE": "0.01",
        "HEARTBENCH_EVAL_FAKE_BACKOFF_CAP": "0.05",
    }


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def run_one(admin, item, capture, **kwargs):
    """A No-Retrieval run of ``item`` on the fake provider, created and run to its end
    (``capture``: django_capture_on_commit_callbacks, so the queued work runs)."""
    run = services.evaluation_run_create(
        created_by=admin,
        provider_key="fake",
        setting=Setting.NO_RETRIEVAL,
        items=[item],
        **kwargs,
    )
    with capture(execute=True):
        services.evaluation_run_start(run_id=run.pk)
    run.refresh_from_db()
    return run
