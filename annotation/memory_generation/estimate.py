"""The cost estimate of a memory generation run before launch (issue #36; the arithmetic
is ``core.llm_runs.estimate``).

The prompts are built with the run's own builders (``prompts.system_values``,
``prompts.user_values``) from the latest prompt version and the batches the run will
make (``services.runs.planned_batches``: the same plans, seed and tier shares give the
same slots), one call per slot, for every slot or an evenly spread sample of
``SAMPLE_SLOTS`` scaled up to all. What a call is sent depends on what was generated
before it, so the estimate assumes:

* the batches of a character run one after another in the order the run sends them
  (largest first), each slot seeing the contexts of the character's stored memories and
  of the memories generated before it, the latest ``ANTI_DUPLICATION_WINDOW``;
* a generated memory's context as long as the average of the memories generated so far
  (``ASSUMED_CONTEXT_CHARS`` before any);
* the run's number is the next one.

Semantic re-asks (a memory refused by the checks, asked again) are not counted: they
are what the margin covers.
"""

from decimal import Decimal

from django.db.models import Avg, Max
from django.db.models.functions import Length

from annotation.corpus.models import Memory
from annotation.memory_generation import prompts
from annotation.memory_generation.batching import resolved_tier_shares
from annotation.memory_generation.models import GeneratedMemory, MemoryCallRecord, MemoryRun
from annotation.memory_generation.schema import MEMORY_SCHEMA
from annotation.memory_generation.services import calls
from annotation.memory_generation.services.runs import planned_batches
from core.llm_runs.estimate import PlannedCall, estimate_run, even_sample, past_output_tokens

__all__ = ["ASSUMED_OUTPUT_TOKENS", "STAGE", "memory_cost_estimate"]

#: Slots whose prompts are built; a larger run is scaled up from an even sample.
SAMPLE_SLOTS = 400
#: The one kind of call of the stage, as the estimate names it.
STAGE = "Memory"
#: Output tokens assumed per memory before any was generated: a memory is about
#: 4,000 characters of JSON (the narrative, its annotations and tags).
ASSUMED_OUTPUT_TOKENS = {STAGE: 1000}
#: The characters assumed per generated memory's context before any was generated.
ASSUMED_CONTEXT_CHARS = 200


def assumed_context() -> str:
    """A stand-in for the context of a memory not yet generated, as long as the average
    of those generated so far."""
    average = (
        Memory.objects.filter(pk__in=GeneratedMemory.objects.values("memory_id"))
        .annotate(chars=Length("context"))
        .aggregate(avg=Avg("chars"))["avg"]
    )
    return "x" * (round(average) if average else ASSUMED_CONTEXT_CHARS)


def stored_contexts(character_ids) -> dict[int, list[str]]:
    """character id → the contexts of its latest stored memories, oldest first (what
    the first slot of the character sees)."""
    out = {}
    for character_id in character_ids:
        newest = (
            Memory.objects.filter(character_id=character_id)
            .order_by("-sequence")
            .values_list("context", flat=True)[: prompts.ANTI_DUPLICATION_WINDOW]
        )
        out[character_id] = list(reversed(newest))
    return out


def planned_slots(plans, *, seed: int, tier_shares) -> list[tuple]:
    """(batch index, plan, batch spec, slot index, slot, memories generated for the
    character before it) of every call, in the order the estimate assumes."""
    batches = planned_batches(plans, seed=seed, tier_shares=tier_shares)
    # The run sends the largest batches first (``dispatch_locked``).
    batches.sort(key=lambda row: (-len(row[2].slots), row[0]))
    before: dict[int, int] = {}
    slots = []
    for index, plan, spec in batches:
        for number, slot in enumerate(spec.slots):
            done = before.get(plan.character_id, 0)
            slots.append((index, plan, spec, number, slot.as_dict(), done))
            before[plan.character_id] = done + 1
    return slots


def memory_cost_estimate(*, plans, seed: int = 0, tier_shares=None):
    """The estimate of a run over ``plans`` (``MemoryPlan`` rows, with their character
    and profile version) with this seed and these tier shares; None when the run would
    have nothing to generate."""
    plans = list(plans)
    if not plans:
        return None
    shares = resolved_tier_shares(tier_shares)
    run_number = (MemoryRun.objects.aggregate(n=Max("pk"))["n"] or 0) + 1
    slots = planned_slots(plans, seed=seed, tier_shares=shares)
    if not slots:
        return None
    try:
        config = calls.provider_config()
        prices = calls.prices()
    except calls.ConfigurationError:
        config, prices = None, (Decimal(0), Decimal(0))
    provider = config.kind.value if config is not None else "memory provider (not configured)"
    prompt = prompts.latest_prompt()
    stored = stored_contexts({plan.character_id for plan in plans})
    generated = assumed_context()
    systems: dict[int, str] = {}
    planned = []
    for index, plan, spec, number, slot, done in even_sample(slots, SAMPLE_SLOTS):
        if index not in systems:
            systems[index] = prompts.render(
                prompt.system_template,
                prompts.system_values(
                    plan.profile_version,
                    life_stage=spec.life_stage,
                    first_age=spec.first_age,
                    last_age=spec.last_age,
                    tier_shares=shares,
                ),
            )
        window = (stored[plan.character_id] + [generated] * done)[
            -prompts.ANTI_DUPLICATION_WINDOW :
        ]
        user = prompts.render(
            prompt.user_template,
            prompts.user_values(
                slot_ref=f"run {run_number} batch {index} slot {number}",
                slot=slot,
                life_stage=spec.life_stage,
                recent_contexts=window,
            ),
        )
        planned.append(
            PlannedCall(
                provider=provider,
                stage=STAGE,
                system=systems[index],
                user=user,
                schema=MEMORY_SCHEMA,
                prices=prices,
            )
        )
    tokens_out, basis = past_output_tokens(
        MemoryCallRecord.objects.all(), assumed=ASSUMED_OUTPUT_TOKENS[STAGE]
    )
    return estimate_run(
        planned,
        output_tokens={STAGE: tokens_out},
        scale=Decimal(len(slots)) / Decimal(len(planned)),
        units=len(slots),
        units_sampled=len(planned),
        output_basis={STAGE: basis},
    )
