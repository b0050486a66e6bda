"""Memory generation runs written straight to the database for the page tests: a frozen
profile, a plan, a run with batches, filled slots, call records and provenance, as the
run services leave them."""

from decimal import Decimal

from django.utils import timezone

from annotation.corpus.models import Character, Memory, ProfileVersion
from annotation.memory_generation import quota
from annotation.memory_generation.models import (
    GeneratedMemory,
    MemoryBatch,
    MemoryCallRecord,
    MemoryPlan,
    MemoryPromptVersion,
    MemoryRun,
    QuotaWeights,
)
from core.life_stages import life_stage_for_age


def frozen_profile(key: str) -> ProfileVersion:
    character, _ = Character.objects.get_or_create(key=key)
    return ProfileVersion.objects.create(
        character=character,
        number=1,
        construction_label="O-high stand-in",
        occupation="set designer",
        openness=0.95,
        conscientiousness=0.5,
        extraversion=0.5,
        agreeableness=0.5,
        neuroticism=0.5,
        description="Curious and restless.",
        self_value_logic="New things keep me alive.",
        core_patterns=[f"pattern {i}" for i in range(8)],
        frozen_at=timezone.now(),
    )


def weights() -> QuotaWeights:
    found = QuotaWeights.objects.order_by("number").first()
    return found or QuotaWeights.objects.create(number=1, weights=quota.default_weights())


def plan_for(key: str, *, deficit: int = 20) -> MemoryPlan:
    profile = frozen_profile(key)
    quotas = quota.allocate(deficit, quota.default_weights())
    return MemoryPlan.objects.create(
        character=profile.character,
        profile_version=profile,
        weights=weights(),
        target=deficit,
        accepted=0,
        existing=[0] * quota.SEGMENT_COUNT,
        quotas=quotas,
    )


def prompt() -> MemoryPromptVersion:
    found = MemoryPromptVersion.objects.order_by("number").first()
    return found or MemoryPromptVersion.objects.create(
        number=1, system_template="You write memories.", user_template="Target age: {age}"
    )


def make_memory(character: Character, sequence: int, age: int, source: str = "") -> Memory:
    return Memory.objects.create(
        character=character,
        sequence=sequence,
        memory_id=f"MEM_{character.key}_O_HIGH_{sequence:04d}",
        anonymized_id=f"MEM_{character.key}_{sequence:04d}",
        timeline=f"{life_stage_for_age(age).label.lower()} ({age} years old)",
        event_age=age,
        life_stage=life_stage_for_age(age).key,
        context="A bus stop in the rain after school, the shelter crowded and loud.",
        content_summary="I wait for the late bus and a stranger shares an umbrella with me.",
        content_full=f'I stand under the shelter. Memory {sequence}.\n\n"Here," she says.',
        triggers=["rain", "bus"],
        psych_conclusion="Small kindness from strangers lands hard.",
        behavior_policy="Accept help when it is offered plainly.",
        emotion_primary="surprise",
        emotion_secondary="",
        emotion_intensity=0.4,
        relevance_tags=["school", "kindness"],
        source=source,
    )


def make_run(
    keys=("CHAR_12",),
    *,
    status=MemoryRun.Status.RUNNING,
    windows=((14, 15, "succeeded", 3, 3), (19, 21, "failed", 3, 1)),
    user=None,
) -> MemoryRun:
    """A run over one plan per character; ``windows`` gives each character's batches as
    (first age, last age, status, slots, filled)."""
    version = prompt()
    run = MemoryRun.objects.create(
        prompt=version,
        provider="openai",
        model_name="fake-memory-model",
        status=status,
        tier_shares={"A": 0.25, "B": 0.35, "C": 0.25, "D": 0.15},
        created_by=user,
        note="page test run",
    )
    index = 0
    for key in keys:
        plan = plan_for(key)
        run.plans.add(plan)
        sequence = Memory.objects.filter(character=plan.character).count()
        for first, last, batch_status, slots, filled in windows:
            batch = MemoryBatch.objects.create(
                run=run,
                plan=plan,
                character=plan.character,
                index=index,
                life_stage=life_stage_for_age(first).key,
                first_age=first,
                last_age=last,
                slots=[
                    {"age": first + (i % (last - first + 1)), "tier": "ABCD"[i % 4]}
                    for i in range(slots)
                ],
                status=batch_status,
                attempts=1,
                error_kind="schema_invalid" if batch_status == "failed" else "",
                error_message=(
                    f"slot {filled}: content_full is shorter than 2000 characters after 3 attempts"
                    if batch_status == "failed"
                    else ""
                ),
                tokens_in=1000,
                tokens_out=500,
                cost_usd=Decimal("0.0125"),
            )
            index += 1
            for slot in range(filled):
                sequence += 1
                age = batch.slots[slot]["age"]
                call = MemoryCallRecord.objects.create(
                    batch=batch,
                    slot=slot,
                    provider="openai",
                    model="fake-memory-model",
                    prompt_hash=f"hash-{batch.pk}-{slot}",
                    request={"user": f"Target age: {age}"},
                    raw_response='{"content_full": "I stand under the shelter."}',
                    parsed={"content_full": "I stand under the shelter."},
                    ok=True,
                    tokens_in=300,
                    tokens_out=150,
                )
                memory = make_memory(
                    plan.character,
                    sequence,
                    age,
                    source=(
                        f"generated: run {run.pk}, batch {batch.index}, slot {slot}, "
                        f"memory prompt v{version.number}, fake-memory-model"
                    ),
                )
                GeneratedMemory.objects.create(
                    memory=memory,
                    batch=batch,
                    slot=slot,
                    tier=batch.slots[slot]["tier"],
                    prompt=version,
                    model_name="fake-memory-model",
                    call=call,
                )
            if batch_status == "failed":
                MemoryCallRecord.objects.create(
                    batch=batch,
                    slot=filled,
                    provider="openai",
                    model="fake-memory-model",
                    prompt_hash=f"hash-{batch.pk}-failed",
                    raw_response='{"content_full": "Too short."}',
                    ok=False,
                    problems=["content_full: 'Too short.' is too short"],
                    error_kind="schema_invalid",
                    error_message="the output failed the schema after 3 attempts",
                )
    return run
