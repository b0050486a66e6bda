"""Fixtures of the web tests: one signed-in client per role, and a small corpus whose
secret fields carry distinctive strings, so a scan of any response can find a leak."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.corpus_import.models import ImportJob, ImportJobFile
from core.roles import Role
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)
from tests.pipeline_ready import memories_audited, scenario_reviewed

# What a baseline participant must never see (DESIGN.md; seed 000 App. J): profiles,
# keys, memories' psychological annotations. Each string occurs nowhere else.
SECRET_KEY = "CHAR_87"
SECRETS = {
    "character key": SECRET_KEY,
    "construction label": "Zqx-construction-label-7731",
    "occupation": "zqx-occupation-lighthouse-keeper",
    "profile description": "Zqx profile description: quivering lanterns at dusk",
    "self-value logic": "Zqx self-value logic: worth is measured in vigilance",
    "core pattern": "Zqx core pattern 5: rehearses every apology twice",
    "Big Five value": "0.8731",
    "memory id": f"MEM_{SECRET_KEY}_N_HIGH_0001",
    "memory content_full": "Zqx memory content: the tin lantern went out in the orchard",
    "psych_conclusion": "Zqx psych conclusion: darkness means abandonment",
    "behavior_policy": "Zqx behavior policy: always carry a spare light",
}


def fresh_character():
    """A character with an unused key. The factory's key sequence wraps after CHAR_99 and
    then returns an existing row (get_or_create), so tests that grow the corpus pick
    free keys themselves."""
    from annotation.corpus.models import Character

    taken = set(Character.objects.values_list("key", flat=True))
    key = next(f"CHAR_{n:02d}" for n in range(1, 100) if f"CHAR_{n:02d}" not in taken)
    return CharacterFactory(key=key)


@pytest.fixture(autouse=True)
def role_groups(db):
    """The role groups come from a data migration; a transactional test elsewhere in the
    session may have flushed them, so make sure they exist."""
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def make_user(db):
    def make(*roles, **kwargs):
        return UserFactory(roles=list(roles), **kwargs)

    return make


@pytest.fixture
def client_for(db, make_user):
    """client_for(Role.ARBITRATOR) -> a Client signed in as a user holding that role."""

    def make(*roles, **kwargs):
        client = Client()
        client.force_login(make_user(*roles, **kwargs))
        return client

    return make


@pytest.fixture
def secret_corpus(db):
    """One character with a frozen and a draft version, two memories, two scenarios and
    an import job: every secret string above is stored somewhere in it."""
    return build_secret_corpus()


def build_secret_corpus():
    """What the secret_corpus fixture holds, for a fixture that builds it once per module
    (tests/blinding.py, module_world)."""
    character = CharacterFactory(key=SECRET_KEY)
    frozen = ProfileVersionFactory(character=character, number=1)
    frozen.frozen_at = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    frozen.save()
    current = ProfileVersionFactory(
        character=character,
        number=2,
        construction_label=SECRETS["construction label"],
        occupation=SECRETS["occupation"],
        openness=float(SECRETS["Big Five value"]),
        description=SECRETS["profile description"],
        self_value_logic=SECRETS["self-value logic"],
        core_patterns=[
            SECRETS["core pattern"] if i == 5 else f"zqx pattern {i}" for i in range(1, 9)
        ],
    )
    memory = MemoryFactory(
        character=character,
        sequence=1,
        memory_id=SECRETS["memory id"],
        content_full=SECRETS["memory content_full"],
        psych_conclusion=SECRETS["psych_conclusion"],
        behavior_policy=SECRETS["behavior_policy"],
    )
    MemoryFactory(character=character, sequence=2, event_age=16)
    # Number 0: the factory numbers its scenarios from 1, so this id never collides.
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_0")
    ScenarioFactory(scenario_id="SCN_ADOLESCENCE_1", stage="adolescence", age=15)
    job = ImportJob.objects.create(
        created_by=UserFactory(username="importing-admin", roles=[Role.ADMIN]),
        status=ImportJob.Status.FAILED,
        errors=[
            {
                "file": "characters.json",
                "record": SECRET_KEY,
                "field": "big_five.O",
                "message": f"{SECRETS['Big Five value']} is fine but the label is not",
            }
        ],
    )
    ImportJobFile.objects.create(job=job, name="characters.json", content=b"{}", size=2)
    return {
        "character": character,
        "frozen": frozen,
        "current": current,
        "memory": memory,
        "scenario": scenario,
        "job": job,
    }


# --- candidate generation ---------------------------------------------------------------

# !!! BLINDING !!!  Distinctive model names, one per family, stored wherever generation
# keeps provenance (run, call records, candidates), so a scan can tell if one leaks.
SECRET_MODEL_NAMES = {
    "claude": "zqx-claude-provenance-4471",
    "gpt": "zqx-gpt-provenance-5582",
    "gemini": "zqx-gemini-provenance-6693",
}


@pytest.fixture
def offline_generation(settings):
    """Every family answers from the offline demo provider (no network), and queued
    tasks run inside the request, as in the one-command demo."""
    from heartbench_site.celery import app
    from heartbench_site.settings.base import _generation_families

    settings.HEARTBENCH_GENERATION_FAMILIES = _generation_families(
        {f"HEARTBENCH_{family.upper()}_KIND": "offline_demo" for family in SECRET_MODEL_NAMES}
    )
    settings.CELERY_TASK_ALWAYS_EAGER = True
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield settings.HEARTBENCH_GENERATION_FAMILIES
    app.conf.task_always_eager = previous


@pytest.fixture
def default_prompts(db):
    """Versions 1, 2 and 3 of each stage's prompt, as the data migrations create them (a
    transactional test elsewhere may have flushed them); v3 is current."""
    from importlib import import_module

    from django.apps import apps

    import_module("annotation.migrations.0003_default_prompts").create_defaults(apps, None)
    import_module("annotation.migrations.0011_default_prompts_v2").create_v2(apps, None)
    import_module("annotation.migrations.0017_default_prompts_v3").create_v3(apps, None)


def frozen_character(memories=3):
    character = fresh_character()
    ProfileVersionFactory(
        character=character, number=1, frozen_at=datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    )
    for sequence in range(1, memories + 1):
        MemoryFactory(character=character, sequence=sequence, event_age=6 + sequence)
    memories_audited(character)  # the generation gates: a finalized memory audit
    return character


@pytest.fixture
def generation_corpus(db, default_prompts):
    """Two characters with a frozen profile and a few audited memories, two reviewed
    scenarios: every pair passes the generation gates."""
    return {
        "characters": [frozen_character(), frozen_character()],
        "scenarios": list(scenario_reviewed(ScenarioFactory(), ScenarioFactory())),
    }


@pytest.fixture
def make_run(db, default_prompts, make_user):
    """make_run(characters, scenarios, families, statuses=...) -> a run whose units,
    call records and candidates are written directly, in the given unit states.

    ``statuses`` cycles over the units; a succeeded unit gets a candidate and a call
    record with its family's SECRET_MODEL_NAMES entry."""
    from annotation.generation.models import (
        Candidate,
        GenerationRun,
        GenerationUnit,
        LlmCallRecord,
        PromptVersion,
    )

    def latest(stage):
        return PromptVersion.objects.filter(stage=stage).order_by("-number").first()

    def make(
        characters,
        scenarios,
        families=tuple(SECRET_MODEL_NAMES),
        statuses=("succeeded",),
        run_status=GenerationRun.Status.RUNNING,
    ):
        families = list(families)
        run = GenerationRun.objects.create(
            created_by=make_user(Role.ADMIN, username=f"launcher-{GenerationRun.objects.count()}"),
            status=run_status,
            families=families,
            screening_prompt=latest("screening"),
            reranking_prompt=latest("reranking"),
            response_prompt=latest("response"),
            models={f: SECRET_MODEL_NAMES[f] for f in families},
        )
        n = 0
        for character in characters:
            version = character.versions.order_by("-number").first()
            for scenario in scenarios:
                for family in families:
                    status = statuses[n % len(statuses)]
                    n += 1
                    reached = {
                        "succeeded": "response",
                        "responding": "reranking",
                        "reranking": "screening",
                    }.get(status, "")
                    unit = GenerationUnit.objects.create(
                        run=run,
                        character=character,
                        scenario=scenario,
                        family=family,
                        profile_version=version,
                        status=status,
                        stage_reached=reached,
                        attempts=1,
                        error_kind="rate_limited" if status == "failed" else "",
                        error_message=(
                            f"Screening failed after 5 requests: HTTP 429 for unit {n}"
                            if status == "failed"
                            else ""
                        ),
                        tokens_in=1000,
                        tokens_out=200,
                        cost_usd="0.0125",
                    )
                    LlmCallRecord.objects.create(
                        unit=unit,
                        stage="screening",
                        provider=family,
                        model=SECRET_MODEL_NAMES[family],
                        prompt_hash="0" * 64,
                        request={"messages": [{"role": "user", "content": "zqx request body"}]},
                        raw_response='{"zqx": "raw response"}',
                        parsed=[] if status != "failed" else None,
                        ok=status != "failed",
                        tokens_in=1000,
                        tokens_out=200,
                        latency_s=0.25,
                        attempt_count=1,
                        error_kind="rate_limited" if status == "failed" else "",
                    )
                    if status == "succeeded":
                        Candidate.objects.create(
                            character=character,
                            scenario=scenario,
                            family=family,
                            model_name=SECRET_MODEL_NAMES[family],
                            run=run,
                            unit=unit,
                            profile_version=version,
                            summary="I think about the plants.",
                            emotional_tone="torn",
                            core_reasoning="A promise is a promise.",
                            final_decision="I stay and water the plants.",
                            activated_memory_ids=[],
                        )
        return run

    return make
