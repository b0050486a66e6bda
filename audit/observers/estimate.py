"""The cost estimate of an observer run before launch (issue 37; the arithmetic is
``core.llm_runs.estimate``).

The prompts are the ones the run's units will send: for each chosen character, the
passages the launch will sample (``services.sampled_material``: same target, size and
seed, so the same passages) put in the observer prompt (``services.material_prompt``),
once per chosen family. With more than ``SAMPLE_CHARACTERS`` characters, an even sample
of them is built and scaled up. Output tokens per answer: the average of the earlier
observer calls, or before any, the length of the answer the inventory asks for (every
item with the scale's largest rating, as compact JSON) at four characters a token.

!!! BLINDING !!!  Admin-facing only: names model families.
"""

import json
import math

from annotation.generation.models import ModelFamily
from audit.observers import prompts
from audit.observers.models import ObserverCall, ObserverInventory
from audit.observers.services import (
    material_prompt,
    observer_family_configs,
    observer_prices,
    sampled_material,
)
from core.llm_runs.estimate import (
    CHARS_PER_TOKEN,
    PlannedCall,
    estimate_run,
    even_sample,
    past_output_tokens,
)

#: Characters whose prompts are built; more are scaled up from an even sample.
SAMPLE_CHARACTERS = 20
STAGE = "observe"


def assumed_output_tokens(inventory: ObserverInventory) -> int:
    """The tokens of an answer rating every item, before any observer call was recorded."""
    answer = {prompts.ANSWER_FIELD: {item["id"]: inventory.scale_max for item in inventory.items}}
    return math.ceil(len(json.dumps(answer, separators=(",", ":"))) / CHARS_PER_TOKEN)


def observer_cost_estimate(*, inventory, characters, target, sample_size, seed, families=None):
    """The estimate of a run observing ``characters`` with ``families`` (every configured
    family when not given), one row per family; None without an inventory, a character
    or a configured family."""
    configs = observer_family_configs()
    families = [f for f in (families or list(configs)) if f in configs]
    characters = list(characters)
    if inventory is None or not characters or not families:
        return None
    chosen = even_sample(characters, SAMPLE_CHARACTERS)
    planned, built = [], 0
    for character in chosen:
        material = sampled_material(character, target=target, size=int(sample_size), seed=seed)
        if not material:
            continue  # the launch refuses such a character; it sends nothing
        built += 1
        system, user, schema = material_prompt(target, inventory, [p.id for p in material])
        for family in families:
            planned.append(
                PlannedCall(
                    provider=f"{ModelFamily(family).label} ({configs[family].kind.value})",
                    stage=STAGE,
                    system=system,
                    user=user,
                    schema=schema,
                    prices=observer_prices(family),
                )
            )
    if not built:
        return None
    tokens_out, basis = past_output_tokens(
        ObserverCall.objects.all(), assumed=assumed_output_tokens(inventory)
    )
    return estimate_run(
        planned,
        output_tokens={STAGE: tokens_out},
        scale=len(characters) / len(chosen),
        units=len(characters) * len(families),
        units_sampled=len(chosen) * len(families),
        output_basis={"Observer report": basis},
    )
