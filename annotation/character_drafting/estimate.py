"""The cost estimate of a drafting job before launch (issue #36; the arithmetic is
``core.llm_runs.estimate``).

Each character of the plan still to draft is one call with the prompt the worker sends
first (``prompts.user_message`` over the current prompt version and the character's
design brief). The estimate assumes every draft passes on its first attempt; a draft
sent back with its problems named (up to the configured attempts) costs another call,
which is what the margin covers.
"""

from decimal import Decimal

from annotation.character_drafting import prompts
from annotation.character_drafting.design import design_brief
from annotation.character_drafting.models import DraftingCall
from annotation.character_drafting.profile_schema import PROFILE_SCHEMA
from annotation.character_drafting.services.common import (
    DraftingError,
    drafting_prices,
)
from annotation.character_drafting.services.jobs import drafting_prompt_current
from core.llm_runs.estimate import PlannedCall, estimate_run, past_output_tokens

__all__ = ["ASSUMED_OUTPUT_TOKENS", "STAGE", "drafting_cost_estimate"]

#: The one kind of call of the stage, as the estimate names it.
STAGE = "Profile draft"
#: Output tokens assumed per draft before any call was recorded: a profile is about
#: 2,000 characters of JSON (scores, eight core patterns, occupation, description).
ASSUMED_OUTPUT_TOKENS = {STAGE: 600}


def drafting_cost_estimate(*, plan, provider):
    """The estimate of a job drafting ``plan`` (the ``PlannedCharacter`` rows still to
    draft) with ``provider`` (the configured ``llm.ProviderConfig``, None when there is
    none); None when there is nothing to draft."""
    if not plan:
        return None
    try:
        prices = drafting_prices()
    except DraftingError:
        prices = (Decimal(0), Decimal(0))
    prompt = drafting_prompt_current()
    system = prompts.render(prompt.system_template, {})
    label = provider.kind.value if provider is not None else "drafting model (not configured)"
    planned = [
        PlannedCall(
            provider=label,
            stage=STAGE,
            system=system,
            user=prompts.user_message(
                user_template=prompt.user_template,
                redraft_template=prompt.redraft_template,
                char_key=character.char_key,
                design_brief=design_brief(character),
                redraft=None,
            ),
            schema=PROFILE_SCHEMA,
            prices=prices,
        )
        for character in plan
    ]
    tokens_out, basis = past_output_tokens(
        DraftingCall.objects.all(), assumed=ASSUMED_OUTPUT_TOKENS[STAGE]
    )
    return estimate_run(
        planned,
        output_tokens={STAGE: tokens_out},
        units=len(planned),
        units_sampled=len(planned),
        output_basis={STAGE: basis},
    )
