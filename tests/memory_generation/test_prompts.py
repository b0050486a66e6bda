"""The memory prompt carries every rule of App. B.5 and L.3; its versions and page."""

import re

import pytest
from django.urls import reverse

from annotation.corpus.models import Memory
from annotation.memory_generation import prompts
from annotation.memory_generation.default_prompt import (
    ALLOWED_EXPRESSIONS,
    FORBIDDEN_EXPRESSIONS,
    RUBIN_DIMENSIONS,
)
from annotation.memory_generation.models import MemoryPromptVersion
from annotation.memory_generation.schema import MEMORY_SCHEMA, memory_problems
from annotation.memory_generation.services.batches import recent_contexts
from annotation.memory_generation.services.prompts import memory_prompt_create
from annotation.memory_generation.services.runs import MemoryGenerationError
from tests.factories import MemoryFactory, UserFactory

from .fixtures_runs import frozen_profile, memory_for

pytestmark = pytest.mark.django_db

# App. L.3, quoted as facts of the protocol.
L3_FORBIDDEN = [
    "years later",
    "many years later",
    "later I learned",
    "later I discovered",
    "now thinking back",
    "now recalling",
    "until now",
    "I didn't know then",
    "until ... only then",
    "it took ... to realize",
    "walked ... before realizing",
    "if only I had known",
    "if I had known earlier",
    "I thought at the time",
    "from then on",
    "thereafter",
    "the whole thing",
    "the most ... part",
]
L3_ALLOWED = [
    "that evening",
    "that night",
    "before bed",
    "the next day",
    "the following day",
    "a few days later",
]
OUTPUT_LENGTHS = [
    "context: a scene description of 15-30 words",
    "content_summary: the gist of the event in 20-40 words",
    "about 2,000-4,500 characters",
    "triggers: 4 ",
    "psych_conclusion: a psychological reading of 40-80 words",
    "behavior_policy: the behavioural tendency the episode leaves, in 30-60 words",
    "an intensity between 0 and 1",
    "relevance_tags: 4 tags",
]


def rendered_system(profile, *, life_stage="adolescence", first=14, last=15):
    return prompts.render(
        prompts.DEFAULT_SYSTEM,
        prompts.system_values(profile, life_stage=life_stage, first_age=first, last_age=last),
    )


def test_the_present_moment_rule_lists_every_forbidden_and_allowed_expression():
    assert [e for e, _ in FORBIDDEN_EXPRESSIONS if e in L3_FORBIDDEN] == L3_FORBIDDEN
    for expression in L3_FORBIDDEN + ["looking back", "I now understand"]:
        assert f'"{expression}"' in prompts.DEFAULT_SYSTEM, expression
    assert [e for e, _ in ALLOWED_EXPRESSIONS] == L3_ALLOWED
    for expression in L3_ALLOWED:
        assert f'"{expression}"' in prompts.DEFAULT_SYSTEM, expression


def test_the_system_prompt_carries_the_three_layers_for_a_real_profile():
    profile = frozen_profile(
        construction_label="Anxious Archivist",
        occupation="Archive conservator",
        description="Reads every situation for what could go wrong.",
        self_value_logic="If I anticipate every failure, nobody can blame me.",
        core_patterns=[f"pattern {i}: checks the locks {i} times" for i in range(1, 9)],
    )
    system = rendered_system(profile)
    # layer 1: the full specification
    for text in (
        "Label: Anxious Archivist",
        "Occupation: Archive conservator",
        "Big Five (0 to 1): O=0.50, C=0.60, E=0.40, A=0.55, N=0.95",
        "Description: Reads every situation for what could go wrong.",
        "Self-value logic: If I anticipate every failure, nobody can blame me.",
    ):
        assert text in system
    for i in range(1, 9):
        assert f"{i}. pattern {i}: checks the locks {i} times" in system
    # layer 2: the window, the bin label and its guidance
    assert 'ages 14–15, in the life stage "Adolescence"' in system
    assert prompts.LIFE_STAGE_GUIDANCE["adolescence"] in system
    # layer 3: the five dimensions, woven without labels
    for name, _ in RUBIN_DIMENSIONS:
        assert f"- {name}:" in system
    assert "no headings, labels or lists" in system
    assert "quotation marks" in system
    assert "24 hours to one week" in system
    assert not re.search(r"\{[a-z_]+\}", system), "every placeholder is filled"


def test_first_person_anonymity_language_strata_tiers_and_output_fields():
    system = prompts.DEFAULT_SYSTEM
    assert 'The narrator is always "I"' in system
    assert "Never write the character's own name" in system
    for address in ('"you"', '"kid"', '"classmate"', '"colleague"'):
        assert address in system
    for stratum in ("Childhood, ages 6 to 11", "Adolescence, ages 12 to 17", "age 18 and over"):
        assert stratum in system
    for tier, name in (("A", "core wound"), ("B", "main thread"), ("C", "daily friction")):
        assert f"- {tier}, {name} (about {{share_{tier.lower()}}})" in system
    assert "- D, background noise (about {share_d})" in system
    for text in OUTPUT_LENGTHS:
        assert text in system, text
    assert set(MEMORY_SCHEMA["required"]) == {
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
    }
    for domain in ("workplace", "interpersonal", "health", "creative", "daily life"):
        assert domain in system


def test_the_prompt_for_an_age_12_memory_uses_the_adolescence_band():
    """seed 000 App. L.3's age-stratified language, with the bands of the life-stage bins
    (core/life_stages.py): age 12 is Adolescence in its bin, its batch and its language;
    L.3 writes childhood 6-12 and adolescence 13-18 (docs/paper-vs-platform.md:
    "Life-stage boundaries")."""
    system = rendered_system(frozen_profile(), life_stage="adolescence", first=12, last=13)
    assert "Adolescence, ages 12 to 17: some self-reflection" in system
    assert "Childhood, ages 6 to 11: simple, direct words" in system
    assert "6 to 12" not in system and "13 to 18" not in system
    values = prompts.user_values(
        slot_ref="run 1 batch 1 slot 1",
        slot={"age": 12, "tier": "C", "domain": "health"},
        life_stage="adolescence",
        recent_contexts=[],
    )
    user = prompts.render(prompts.DEFAULT_USER, values)
    assert "Target age: 12\nLife-stage bin: Adolescence\n" in user
    assert "Language for the age: Adolescence, ages 12 to 17: some self-reflection" in user
    eleven = prompts.user_values(
        slot_ref="run 1 batch 1 slot 2",
        slot={"age": 11, "tier": "C", "domain": "health"},
        life_stage="school_age",
        recent_contexts=[],
    )
    assert eleven["age_band"].startswith("Childhood, ages 6 to 11")


def test_the_tier_proportions_are_the_runs():
    profile = frozen_profile()
    values = prompts.system_values(
        profile,
        life_stage="school_age",
        first_age=6,
        last_age=8,
        tier_shares={"A": 0.1, "B": 0.4, "C": 0.3, "D": 0.2},
    )
    system = prompts.render(prompts.DEFAULT_SYSTEM, values)
    assert "A, core wound (about 10%)" in system
    assert "D, background noise (about 20%)" in system
    default = rendered_system(profile)
    assert "A, core wound (about 25%)" in default and "B, main thread (about 35%)" in default


def test_the_user_prompt_has_the_fixed_lines_and_the_recent_scenes():
    values = prompts.user_values(
        slot_ref="run 1 batch 2 slot 3",
        slot={"age": 14, "tier": "B", "domain": "interpersonal"},
        life_stage="adolescence",
        recent_contexts=["a locker slammed", "the bus was late"],
    )
    user = prompts.render(prompts.DEFAULT_USER, values)
    assert (
        "Target age: 14\nLife-stage bin: Adolescence\nIntensity tier: B\nDomain: interpersonal"
        in user
    )
    assert "Recent scenes to avoid:\n- a locker slammed\n- the bus was late" in user
    assert '"adolescence (14 years old)"' in user
    assert "main thread" in user


def test_the_anti_duplication_window_holds_the_last_100_contexts():
    profile = frozen_profile()
    for seq in range(1, 131):
        MemoryFactory(
            character=profile.character,
            sequence=seq,
            memory_id=f"MEM_CHAR_01_N_HIGH_{seq:04d}",
            anonymized_id=f"MEM_CHAR_01_{seq:04d}",
            context=f"scene number {seq}",
        )
    window = recent_contexts(profile.character_id)
    assert window == [f"scene number {seq}" for seq in range(31, 131)]
    assert Memory.objects.count() == 130


def test_semantic_checks_name_each_problem():
    slot = {"age": 14, "bin": "Adolescence", "tier": "B", "domain": "health"}
    good = memory_for(slot, 1)
    assert memory_problems(good, target_age=14) == []
    assert memory_problems(good, target_age=15) == [
        "timeline states age 14, but this memory is for age 15; the episode must happen at "
        "the target age."
    ]
    bad = {
        **good,
        "timeline": "adolescence",
        "content_full": "x" * 10_001,
        "behavior_policy": "  ",
        "emotion_signature": {"primary": "fear", "secondary": "", "intensity": 1.5},
    }
    problems = memory_problems(bad, target_age=14)
    assert any(p.startswith('timeline "adolescence" states no age') for p in problems)
    assert any(p.startswith("content_full has 10,001 characters") for p in problems)
    assert "behavior_policy is empty; write it." in problems
    assert "emotion_signature.intensity is 1.5; it must be between 0 and 1." in problems
    # PostgreSQL cannot store NUL: such an answer goes back to the model, naming the fields.
    nul = {**good, "context": "a\x00b", "triggers": ["ok", "c\x00"]}
    assert memory_problems(nul, target_age=14) == [
        "context, triggers contain a NUL character (\\u0000); write plain text."
    ]


def test_latest_prompt_writes_version_1_once():
    first = prompts.latest_prompt()
    assert first.number == 1 and first.system_template == prompts.DEFAULT_SYSTEM
    assert prompts.latest_prompt() == first
    assert MemoryPromptVersion.objects.count() == 1


def test_a_new_version_is_numbered_and_checked_for_placeholders():
    user = UserFactory()
    version = memory_prompt_create(
        user=user,
        system_template=prompts.DEFAULT_SYSTEM + "\nBe brief.",
        user_template=prompts.DEFAULT_USER,
        note="shorter",
    )
    assert version.number == 2 and prompts.latest_prompt() == version
    with pytest.raises(MemoryGenerationError, match=r"Unknown placeholder \{mood\}"):
        memory_prompt_create(
            user=user, system_template="{mood}", user_template=prompts.DEFAULT_USER
        )
    with pytest.raises(MemoryGenerationError, match=r"must keep \{recent_contexts\}"):
        memory_prompt_create(
            user=user,
            system_template=prompts.DEFAULT_SYSTEM,
            user_template=prompts.DEFAULT_USER.replace("{recent_contexts}", ""),
        )
    assert MemoryPromptVersion.objects.count() == 2


def test_the_prompt_pages_list_versions_and_save_the_next(client, django_assert_num_queries):
    admin = UserFactory(roles=["admin"])
    client.force_login(admin)
    prompts.latest_prompt()
    page = client.get(reverse("memory_generation:prompt-list"))
    assert page.status_code == 200
    assert b"Current: v1" in page.content
    with django_assert_num_queries(5):  # session, user, roles, latest, versions
        client.get(reverse("memory_generation:prompt-list"))
    form = client.get(reverse("memory_generation:prompt-new"))
    assert "Target age: {target_age}" in form.content.decode()

    refused = client.post(
        reverse("memory_generation:prompt-new"),
        {"system_template": "{nope}", "user_template": prompts.DEFAULT_USER},
    )
    assert refused.status_code == 200
    assert "Unknown placeholder {nope}" in refused.content.decode()
    assert MemoryPromptVersion.objects.count() == 1

    saved = client.post(
        reverse("memory_generation:prompt-new"),
        {
            "system_template": prompts.DEFAULT_SYSTEM,
            "user_template": prompts.DEFAULT_USER + "\nOne more rule.",
            "note": "a rule",
        },
    )
    assert saved.status_code == 302
    assert MemoryPromptVersion.objects.get(number=2).created_by == admin
    listing = client.get(reverse("memory_generation:prompt-list")).content.decode()
    assert "Current: v2" in listing and "Earlier versions" in listing


def test_the_prompt_pages_are_for_admins(client):
    client.force_login(UserFactory(roles=["memory_reviewer"]))
    assert client.get(reverse("memory_generation:prompt-list")).status_code == 403
