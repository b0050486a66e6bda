"""Memory generation's part of `make demo`: a generated stand-in character at the audit
stage (seed 000 §2.2 Stage 2, App. B.4, B.5).

``demo_memory_generation`` writes one stand-in character (labelled ``is_demo_standin``)
with a frozen stand-in profile, an initial plan with a small quota, and a finished run
whose batches, call records, memories and provenance rows look exactly as a run leaves
them; its memories then wait in the corpus for the memory audit like any others.

The demo writes those rows itself from the offline demo answer of the memory prompt
(``llm.demo_memories``) instead of going through the run services and Celery: it needs
no worker and no network, and stays well under a second for its ~40 memories. The
answers are the same ones the offline demo provider gives a real run. Idempotent: a
second call finds the demo run and returns it.
"""

import json
import random

from django.db import transaction
from django.utils import timezone

from annotation.corpus.life_stages import LIFE_STAGE_BINS, life_stage_for_age
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
from llm.demo_answers import DemoSettings, seed_material
from llm.demo_memories import DOMAINS, memory_answer
from llm.records import prompt_hash

DEMO_NOTE = "Demo: a generated stand-in character (offline demo provider, small quota)"
DEMO_CHARACTER = "CHAR_12"
DEMO_QUOTA = 40
DEMO_MODEL = "offline-demo"
DEMO_PROVIDER = "offline_demo"
STANDIN = "[Demo stand-in, generated on the platform]"
TIER_SHARES = {"A": 0.25, "B": 0.35, "C": 0.25, "D": 0.15}  # App. L.3
WINDOW_YEARS = 5  # App. B.5: a batch covers a 2–5-year window inside one bin
DEMO_SYSTEM = f"{STANDIN} Write one episodic memory of the character, in the first person."


def _standin_profile(character: Character, user) -> ProfileVersion:
    return ProfileVersion.objects.create(
        character=character,
        number=1,
        construction_label=f"High-Openness set designer {STANDIN}",
        occupation="theatre set designer",
        openness=0.95,
        conscientiousness=0.45,
        extraversion=0.55,
        agreeableness=0.6,
        neuroticism=0.4,
        description=f"{STANDIN} Restless and curious; builds worlds out of cardboard and light.",
        self_value_logic=f"{STANDIN} I matter when I make something nobody has seen before.",
        core_patterns=[
            f"{STANDIN} {pattern}"
            for pattern in (
                "Rearranges any room they spend an hour in.",
                "Asks how a thing works before being told what it is for.",
                "Loses track of time when making something.",
                "Gets bored by repeated routines and invents variations.",
                "Collects odd objects for later projects.",
                "Says yes to unfamiliar invitations.",
                "Argues for the unusual option in group decisions.",
                "Sketches while listening.",
            )
        ],
        is_demo_standin=True,
        source="demo: memory generation stand-in",
        frozen_at=timezone.now(),
        frozen_by=user,
    )


def _prompt(user) -> MemoryPromptVersion:
    # The current prompt version (h3's prompts.latest_prompt creates v1 from the default
    # text when none exists; the lead wires it here at the merge).
    found = MemoryPromptVersion.objects.order_by("-number").first()
    return found or MemoryPromptVersion.objects.create(
        number=1,
        system_template=DEMO_SYSTEM,
        user_template="Target age: {age}\nLife-stage bin: {bin}\nIntensity tier: {tier}\n"
        "Domain: {domain}\nRecent scenes to avoid:\n{recent}",
        note="Demo prompt",
        created_by=user,
    )


def _windows(quotas: list[int]) -> list[tuple[str, int, int]]:
    """(bin, first age, last age) windows of at most WINDOW_YEARS inside each bin, for
    the ages with a quota."""
    windows = []
    for b in LIFE_STAGE_BINS:
        ages = [a for a in range(b.first_age, b.last_age + 1) if quotas[a - quota.SEGMENT_AGES[0]]]
        while ages:
            chunk, ages = ages[:WINDOW_YEARS], ages[WINDOW_YEARS:]
            windows.append((b.key, chunk[0], chunk[-1]))
    return windows


def _tier(rng: random.Random) -> str:
    draw, total = rng.random(), 0.0
    for tier, share in TIER_SHARES.items():
        total += share
        if draw < total:
            return tier
    return "D"


def demo_memory_generation(*, user, character_key: str = DEMO_CHARACTER) -> MemoryRun:
    existing = MemoryRun.objects.filter(note=DEMO_NOTE).first()
    if existing is not None:
        return existing
    with transaction.atomic():
        character, _ = Character.objects.get_or_create(key=character_key)
        profile = character.versions.order_by("-number").first() or _standin_profile(
            character, user
        )
        weights = QuotaWeights.objects.order_by("-number").first() or QuotaWeights.objects.create(
            number=1, weights=quota.default_weights(), note="Demo: the default weights"
        )
        quotas = quota.allocate(DEMO_QUOTA, weights.weights)
        plan = MemoryPlan.objects.create(
            character=character,
            profile_version=profile,
            weights=weights,
            target=DEMO_QUOTA,
            accepted=0,
            existing=[0] * quota.SEGMENT_COUNT,
            quotas=quotas,
            note="Demo: a small quota",
            created_by=user,
        )
        prompt = _prompt(user)
        now = timezone.now()
        run = MemoryRun.objects.create(
            prompt=prompt,
            provider=DEMO_PROVIDER,
            model_name=DEMO_MODEL,
            concurrency=4,
            tier_shares=TIER_SHARES,
            status=MemoryRun.Status.FINISHED,
            note=DEMO_NOTE,
            created_by=user,
            started_at=now,
            finished_at=now,
        )
        run.plans.add(plan)
        _generate(run, plan, prompt, character, profile)
    return run


def _generate(run, plan, prompt, character, profile) -> None:
    rng = random.Random(f"demo-memory-run-{character.key}")
    label = profile.trait_anchor.upper().replace(" ", "_")
    label = label if label.endswith(("HIGH", "LOW")) else "NEUTRAL"
    settings = DemoSettings(seed=0)
    sequence = Memory.objects.filter(character=character).count()
    recent: list[str] = []
    for index, (bin_key, first, last) in enumerate(_windows(plan.quotas)):
        slots = [
            {"age": age, "tier": _tier(rng)}
            for age in range(first, last + 1)
            for _ in range(plan.quotas[age - quota.SEGMENT_AGES[0]])
        ]
        batch = MemoryBatch.objects.create(
            run=run,
            plan=plan,
            character=character,
            index=index,
            life_stage=bin_key,
            first_age=first,
            last_age=last,
            slots=slots,
            status=MemoryBatch.Status.SUCCEEDED,
            attempts=1,
        )
        for slot, spec in enumerate(slots):
            stage = life_stage_for_age(spec["age"])
            user_text = prompt.user_template.format(
                age=spec["age"],
                bin=stage.label,
                tier=spec["tier"],
                domain=DOMAINS[(index + slot) % len(DOMAINS)],
                recent="\n".join(f"- {c}" for c in recent[-100:]) or "- (none yet)",
            )
            seed = seed_material(
                settings, DEMO_MODEL, prompt_hash(prompt.system_template, user_text, {})
            )
            value = memory_answer(user=user_text, schema={}, rng=random.Random(seed))
            raw = json.dumps(value, ensure_ascii=False)
            call = MemoryCallRecord.objects.create(
                batch=batch,
                slot=slot,
                provider=DEMO_PROVIDER,
                model=DEMO_MODEL,
                prompt_hash=prompt_hash(prompt.system_template, user_text, {}),
                request={"offline_demo": True, "user": user_text},
                raw_response=raw,
                parsed=value,
                ok=True,
                attempt_count=1,
            )
            sequence += 1
            emotion = value["emotion_signature"]
            memory = Memory.objects.create(
                character=character,
                sequence=sequence,
                memory_id=f"MEM_{character.key}_{label}_{sequence:04d}",
                anonymized_id=f"MEM_{character.key}_{sequence:04d}",
                timeline=value["timeline"],
                event_age=spec["age"],
                life_stage=stage.key,
                context=value["context"],
                content_summary=value["content_summary"],
                content_full=value["content_full"],
                triggers=value["triggers"],
                psych_conclusion=value["psych_conclusion"],
                behavior_policy=value["behavior_policy"],
                emotion_primary=emotion["primary"],
                emotion_secondary=emotion["secondary"],
                emotion_intensity=emotion["intensity"],
                relevance_tags=value["relevance_tags"],
                is_demo_standin=True,
                source=(
                    f"generated: run {run.pk}, batch {index}, slot {slot}, "
                    f"memory prompt v{prompt.number}, {DEMO_MODEL}"
                ),
            )
            GeneratedMemory.objects.create(
                memory=memory,
                batch=batch,
                slot=slot,
                tier=spec["tier"],
                prompt=prompt,
                model_name=DEMO_MODEL,
                call=call,
            )
            recent.append(value["context"])
