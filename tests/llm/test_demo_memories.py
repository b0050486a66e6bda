"""The demo answer for the memory generation prompt (seed 000 App. B.5, B.7, L.3): schema
valid, shaped by the slot the prompt names, varied enough that the memory audit (App. B.6)
finds nothing in a dry run, seeded, labelled, and broken on purpose at the configured
share."""

import re

import pytest

from audit.memory_quality import criteria
from audit.memory_quality.models import AuditSettings
from audit.memory_quality.services.configuration import audit_settings_defaults
from llm import ProviderConfig
from llm.conversation import validator_for_schema
from llm.demo.answers import DemoSettings, prompt_kind
from llm.demo.client import OfflineDemoClient, demo_output
from llm.demo.material import DEMO_LABEL
from llm.demo.memories import TIER_INTENSITY

# A stand-in for annotation/memory_generation/schema.py (B.7 / L.3 field names).
TEXT = {"type": "string", "minLength": 1}
MEMORY_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "id",
        "timeline",
        "context",
        "content_summary",
        "content_full",
        "triggers",
        "psych_conclusion",
        "behavior_policy",
        "emotion_signature",
        "relevance_tags",
    ],
    "properties": {
        "id": TEXT,
        "timeline": {"type": "string", "pattern": r"\(\d{1,2} years old\)"},
        "context": TEXT,
        "content_summary": TEXT,
        "content_full": {"type": "string", "minLength": 2000, "maxLength": 4500},
        "triggers": {"type": "array", "items": TEXT, "minItems": 3, "maxItems": 6},
        "psych_conclusion": TEXT,
        "behavior_policy": TEXT,
        "emotion_signature": {
            "type": "object",
            "additionalProperties": False,
            "required": ["primary", "secondary", "intensity"],
            "properties": {
                "primary": TEXT,
                "secondary": {"type": "string"},
                "intensity": {"type": "number", "minimum": 0, "maximum": 1},
            },
        },
        "relevance_tags": {"type": "array", "items": TEXT, "minItems": 3, "maxItems": 6},
    },
}
SYSTEM = "You write one episodic memory of the character, in the first person."
FORBIDDEN = ("years later", "later i learned", "looking back", "now recalling", "until now")


def user_prompt(age=14, stage="Adolescence", tier="B", domain="interpersonal", n=0) -> str:
    return (
        f"Write memory {n} of this batch.\nTarget age: {age}\nLife-stage bin: {stage}\n"
        f"Intensity tier: {tier}\nDomain: {domain}\nRecent scenes to avoid:\n- a bus stop\n"
    )


def answer(user=None, *, model="fake-memory-model", seed=0, fail=0.0):
    return demo_output(
        system=SYSTEM,
        user=user or user_prompt(),
        schema=MEMORY_SCHEMA,
        model=model,
        settings=DemoSettings(seed=seed, memory_fail_share=fail),
    )


def test_the_memory_schema_is_its_own_prompt_kind_and_repair_stays_repair():
    assert prompt_kind(MEMORY_SCHEMA) == "memory_generation"
    repair = {"type": "object", "properties": {"content_full": TEXT}}
    assert prompt_kind(repair) == "memory_repair"


@pytest.mark.parametrize(
    ("age", "stage", "tier", "domain"),
    [
        (7, "School age", "A", "daily life"),
        (14, "Adolescence", "B", "workplace"),
        (30, "Age-30 transition", "C", "health"),
        (47, "Entering middle adulthood", "D", "creative"),
    ],
)
def test_the_answer_is_a_valid_memory_for_the_slot_the_prompt_names(age, stage, tier, domain):
    value = answer(user_prompt(age, stage, tier, domain))
    assert validator_for_schema(MEMORY_SCHEMA).errors(value) == []
    assert value["timeline"] == f"{stage.lower()} ({age} years old)"
    low, high = TIER_INTENSITY[tier]
    assert low <= value["emotion_signature"]["intensity"] <= high
    text = value["content_full"]
    assert 2000 <= len(text) <= 4500
    assert text.startswith(f"{DEMO_LABEL} I am {age}")
    assert re.search(r'"[^"]+"', text), "a reconstructed line of dialogue"
    assert not any(phrase in text.lower() for phrase in FORBIDDEN)
    assert not re.search(r"\b(he|she) (is|was) me\b", text)
    for field in ("context", "content_summary", "psych_conclusion", "behavior_policy"):
        assert value[field].startswith(DEMO_LABEL), field
    assert 15 <= len(value["context"].split()) <= 30
    assert 20 <= len(value["content_summary"].split()) <= 40


def test_same_seed_model_and_prompt_same_memory_anything_else_another():
    first = answer()
    assert answer() == first
    assert answer(seed=1)["content_full"] != first["content_full"]
    assert answer(model="another-model")["content_full"] != first["content_full"]
    assert answer(user_prompt(n=1))["content_full"] != first["content_full"]


def test_a_batch_of_memories_varies():
    values = [answer(user_prompt(age=12 + n % 6, n=n)) for n in range(20)]
    assert len({v["content_full"][:300] for v in values}) == 20
    assert len({v["context"] for v in values}) == 20
    assert len({v["emotion_signature"]["primary"] for v in values}) > 1


TIERS = "ABCD"
DOMAINS = ("workplace", "interpersonal", "health", "creative", "daily life")


def mean_cosine(texts: list[str]) -> float:
    """The mean TF-IDF cosine over all pairs (criterion 4's vectors; pairs sharing no
    word count as 0)."""
    scores = [score for _i, _j, score in criteria.similar_pairs(texts, -1.0)]
    return sum(scores) / (len(texts) * (len(texts) - 1) / 2)


def test_fifty_memories_of_one_age_window_are_not_duplicates_for_the_audit():
    texts = [
        answer(
            user_prompt(14 + n % 3, "Adolescence", TIERS[n % 4], DOMAINS[n // 4 % 5], n), seed=n
        )["content_full"]
        for n in range(50)
    ]
    assert criteria.similar_pairs(texts, criteria.DUPLICATE_THRESHOLD) == []
    assert mean_cosine(texts) < 0.5


@pytest.mark.parametrize(
    ("age", "domain"), [(8, "daily life"), (15, "interpersonal"), (35, "workplace")]
)
def test_fifty_memories_of_one_age_and_domain_are_not_duplicates_for_the_audit(age, domain):
    texts = [
        answer(user_prompt(age, "Stage", TIERS[n % 4], domain, n), seed=n)["content_full"]
        for n in range(50)
    ]
    assert criteria.similar_pairs(texts, criteria.DUPLICATE_THRESHOLD) == []


def test_fifty_memories_pass_the_audit_with_its_default_settings():
    config = AuditSettings(**audit_settings_defaults()).as_config()
    compiled = criteria.CompiledConfig.of(config)
    memories = []
    for n in range(50):
        age = 6 + n * 44 // 49  # 6 to 50, child ages (criterion 2) included
        tier, domain = TIERS[n % 4], DOMAINS[n * 3 % 5]
        value = answer(user_prompt(age, "Stage", tier, domain, n), seed=n)
        memories.append(
            criteria.MemoryText(
                key=f"MEM_DEMO_{n:03d}",
                character="CHAR_DEMO",
                event_age=age,
                context=value["context"],
                content_summary=value["content_summary"],
                content_full=value["content_full"],
                emotion_intensity=value["emotion_signature"]["intensity"],
            )
        )
        assert criteria.check_memory(memories[-1], compiled) == [], (age, tier, domain)
    assert any(m.emotion_intensity < config.low_intensity_threshold for m in memories)
    result = criteria.audit_memories(memories, config, compiled=compiled)
    assert result.flagged() == set()
    assert result.length_report["within_guided"] == 50


def test_the_fail_share_breaks_that_share_of_answers_on_purpose():
    validator = validator_for_schema(MEMORY_SCHEMA)
    prompts = [user_prompt(n=n) for n in range(60)]
    assert all(not validator.errors(answer(p)) for p in prompts)
    assert all(validator.errors(answer(p, fail=1.0)) for p in prompts)
    broken = sum(bool(validator.errors(answer(p, fail=0.3))) for p in prompts)
    assert 6 <= broken <= 30, broken


def test_the_offline_demo_client_reports_a_broken_memory_as_a_failed_call():
    config = ProviderConfig(kind="offline_demo", model="offline-demo")
    ok = OfflineDemoClient(config, settings=DemoSettings(memory_fail_share=0.0))
    bad = OfflineDemoClient(config, settings=DemoSettings(memory_fail_share=1.0))
    kwargs = {"system": SYSTEM, "user": user_prompt(), "schema": MEMORY_SCHEMA}
    assert ok.complete_json(**kwargs).ok
    result = bad.complete_json(**kwargs)
    assert not result.ok and result.error_kind


def test_the_fail_share_comes_from_the_environment_and_is_checked():
    assert DemoSettings.from_env({}).memory_fail_share == 0.0
    env = {"HEARTBENCH_DEMO_MEMORY_FAIL_SHARE": "0.2"}
    assert DemoSettings.from_env(env).memory_fail_share == 0.2
    with pytest.raises(ValueError, match="HEARTBENCH_DEMO_MEMORY_FAIL_SHARE"):
        DemoSettings.from_env({"HEARTBENCH_DEMO_MEMORY_FAIL_SHARE": "lots"})
    with pytest.raises(ValueError, match="between 0 and 1"):
        DemoSettings(memory_fail_share=1.5)


def test_the_offline_model_writes_ages_by_the_platforms_one_age_rule():
    """seed 000 App. L.3 / B.6 criterion 2 (issue 35): the bins, the prompts, the audit and
    the offline demo model read a memory's age by one rule: School age is childhood,
    Adolescence (from 12) a teenager's, and from Early adult transition an adult's."""
    from core.life_stages import ADOLESCENCE, CHILDHOOD
    from llm.demo.memories import _age_group

    assert _age_group(CHILDHOOD.first_age) == _age_group(CHILDHOOD.last_age) == "child"
    assert _age_group(ADOLESCENCE.first_age) == _age_group(ADOLESCENCE.last_age) == "teen"
    assert _age_group(ADOLESCENCE.last_age + 1) == "adult"
