"""The cost estimate of a generation run before launch (issue #36; the arithmetic is
``core.llm_runs.estimate``).

The prompts are built with the pipeline's own builders (``prompts``) from the current
prompt versions, each pair's profile, scenario and audited memories, for every pair or
an evenly spread sample of ``SAMPLE_PAIRS`` scaled up to all. What a call will be sent
depends on earlier answers, so the estimate assumes (App. L.5):

* screening: the batches of the pair's eligible memories, exactly as the worker builds them;
* re-ranking: made when more than 50 memories would survive screening, which keeps about
  75 (the screening budget); offered the first of them, with a short reason each;
* response: with the first 50 eligible memories (or all, when fewer).

!!! BLINDING !!!  Names model families: admin pages only.
"""

from decimal import Decimal

from annotation.corpus.models import Memory
from annotation.generation import prompts
from annotation.generation.models import GenerationStage, LlmCallRecord, ModelFamily
from annotation.generation.services.activation import PROMPT_MEMORY_FIELDS
from annotation.generation.services.calls import generation_family_configs
from annotation.generation.services.runs import _latest_prompt
from audit.memory_quality.corpus import audited_memory_ids
from core.llm_runs.estimate import PlannedCall, average_output_tokens, estimate_run, even_sample
from core.protocol import ACTIVATED_MEMORY_LIMIT

Stage = GenerationStage

#: Pairs whose prompts are built; a larger run is scaled up from an even sample.
SAMPLE_PAIRS = 40
#: Output tokens assumed per answer before any call of the stage was recorded: screening
#: and re-ranking answer a list of ids with a reason each (~20 tokens an item, 75 and 50
#: items), the response four short texts.
ASSUMED_OUTPUT_TOKENS = {Stage.SCREENING: 1500, Stage.RERANKING: 1000, Stage.RESPONSE: 600}
#: Memories assumed to survive screening (its budget over the pool, L.5.1).
SCREENED_ASSUMED = round(ACTIVATED_MEMORY_LIMIT * prompts.SCREENING_BUFFER_FACTOR)
#: The first-pass reason assumed per memory in the re-ranking prompt.
ASSUMED_REASON = "x" * 80


def pair_prompts(profile, scenario, memories, versions) -> list[tuple[str, str, str, object]]:
    """(stage, system, user, schema) of every call one unit of the pair is assumed to
    make; ``memories`` are the character's audited memories in timeline order."""
    eligible = [m for m in memories if m.event_age <= scenario.age]
    base = {
        "character": prompts.character_block(profile),
        "scenario": prompts.scenario_block(scenario),
        "character_id": profile.character.key,
        "scenario_id": scenario.scenario_id,
    }
    calls = []
    batches = prompts.screening_batches(eligible)
    for number, batch in enumerate(batches, start=1):
        values = {
            **base,
            "memories": "\n".join(prompts.screening_memory_line(m) for m in batch),
            "budget": prompts.screening_budget(len(batch), len(eligible)),
            "batch_label": f"batch {number} of {len(batches)}, {len(batch)} memories",
        }
        calls.append((Stage.SCREENING, versions[Stage.SCREENING], values, prompts.SCREENING_SCHEMA))
    screened = eligible[:SCREENED_ASSUMED]
    if len(screened) > ACTIVATED_MEMORY_LIMIT:
        values = {
            **base,
            "memories": "\n".join(
                prompts.reranking_memory_line(m, ASSUMED_REASON) for m in screened
            ),
            "target": ACTIVATED_MEMORY_LIMIT,
            "count": len(screened),
        }
        schema = prompts.reranking_schema(ACTIVATED_MEMORY_LIMIT)
        calls.append((Stage.RERANKING, versions[Stage.RERANKING], values, schema))
    activated = screened[:ACTIVATED_MEMORY_LIMIT]
    values = {
        **base,
        "memories": "\n".join(prompts.response_memory_line(m) for m in activated)
        or "(nothing in particular comes back to you)",
    }
    calls.append((Stage.RESPONSE, versions[Stage.RESPONSE], values, prompts.RESPONSE_SCHEMA))
    return [
        (
            stage,
            prompts.render(version.system_template, values),
            prompts.render(version.user_template, values),
            schema,
        )
        for stage, version, values, schema in calls
    ]


def _audited_memories(characters) -> dict[int, list]:
    """character id → its audited memories (the prompts' columns and the event age) in
    timeline order: a fixed number of queries whatever the number of characters."""
    kept = audited_memory_ids(c.pk for c in characters)
    rows = (
        Memory.objects.filter(character_id__in=list(kept))
        .order_by("character_id", "event_age", "sequence")
        .values_list("pk", "character_id", *PROMPT_MEMORY_FIELDS, "event_age", named=True)
    )
    memories: dict[int, list] = {pk: [] for pk in kept}
    for row in rows:
        allowed = kept[row.character_id]
        if allowed is None or row.pk in allowed:
            memories[row.character_id].append(row)
    return memories


def _family_prices(setup: dict, stage: str) -> tuple[Decimal, Decimal]:
    prefix = "" if stage == Stage.RESPONSE else "activation_"
    return (
        Decimal(str(setup.get(f"{prefix}price_in", 0))),
        Decimal(str(setup.get(f"{prefix}price_out", 0))),
    )


def provider_label(family: str, setup: dict | None) -> str:
    """How the estimate names a family's provider: "Claude (anthropic)"."""
    label = ModelFamily(family).label if family in ModelFamily.values else family
    return f"{label} ({setup['response'].kind.value})" if setup else label


def generation_cost_estimate(*, families, gates):
    """The estimate of a run over ``gates``' pairs (``selectors.generation_pair_gates``)
    for the configured ``families`` among those chosen; None when no pair or family."""
    configs = generation_family_configs()
    families = [f for f in ModelFamily.values if f in families and f in configs]
    pairs = [
        (character, scenario)
        for character in gates.characters
        if character.pk in gates.profiles
        for scenario in gates.scenarios
    ]
    if not families or not pairs:
        return None
    versions = {stage: _latest_prompt(stage) for stage in Stage.values}
    chosen = even_sample(pairs, SAMPLE_PAIRS)
    memories = _audited_memories({character for character, _ in chosen})
    planned = []
    for character, scenario in chosen:
        profile = gates.profiles[character.pk]
        profile.character = character  # already read: the prompt names it by its key
        for stage, system, user, schema in pair_prompts(
            profile, scenario, memories[character.pk], versions
        ):
            for family in families:
                setup = configs[family]
                planned.append(
                    PlannedCall(
                        provider=provider_label(family, setup),
                        stage=stage,
                        system=system,
                        user=user,
                        schema=schema,
                        prices=_family_prices(setup, stage),
                    )
                )
    output_tokens, basis = average_output_tokens(
        LlmCallRecord.objects.all(), stage_field="stage", assumed=ASSUMED_OUTPUT_TOKENS
    )
    return estimate_run(
        planned,
        output_tokens=output_tokens,
        scale=Decimal(len(pairs)) / Decimal(len(chosen)),
        units=len(pairs) * len(families),
        units_sampled=len(chosen) * len(families),
        output_basis={Stage(stage).label: text for stage, text in basis.items()},
    )
