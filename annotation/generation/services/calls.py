"""Calls to a family's model: the configured providers, the run's prompt filled for a
unit, and one structured call recorded as an ``LlmCallRecord`` (seed 000 App. L.5).

!!! BLINDING !!!  ``family`` is provenance; nothing here is annotator-facing.
"""

from decimal import Decimal

from django.conf import settings

import llm
from annotation.generation import prompts
from annotation.generation.models import (
    GenerationStage,
    GenerationUnit,
    LlmCallRecord,
    PromptVersion,
)
from core.llm_runs.services import record_call
from core.plurals import counted
from core.providers import at_temperature, cached_client, temperature_refused

NOT_CONFIGURED = "not_configured"


class StageFailed(Exception):
    """A stage of a unit failed; the unit is marked failed with ``kind`` and ``message``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


# --- configuration --------------------------------------------------------------------


def generation_family_configs() -> dict:
    """``settings.HEARTBENCH_GENERATION_FAMILIES``: {family: {"response", "activation",
    prices}} for the families whose provider is configured (see settings/base.py)."""
    return getattr(settings, "HEARTBENCH_GENERATION_FAMILIES", {}) or {}


def _family_setup(unit: GenerationUnit, role: str):
    setup = generation_family_configs().get(unit.family)
    if setup is None:
        raise StageFailed(
            NOT_CONFIGURED,
            f"No provider is configured for {unit.family} in this worker; set "
            f"HEARTBENCH_{unit.family.upper()}_* and retry the failed units.",
        )
    config = setup[role]
    if role == "activation":
        prices = setup.get("activation_price_in", 0), setup.get("activation_price_out", 0)
    else:
        prices = setup.get("price_in", 0), setup.get("price_out", 0)
    return config, tuple(Decimal(str(p)) for p in prices)


# --- prompts --------------------------------------------------------------------------

_prompts: dict[int, PromptVersion] = {}


def run_prompt(prompt_id: int) -> PromptVersion:
    """A run's prompt version; safe to keep per process because a version a run uses
    never changes (``PromptVersion.save``)."""
    prompt = _prompts.get(prompt_id)
    if prompt is None:
        prompt = _prompts[prompt_id] = PromptVersion.objects.get(pk=prompt_id)
    return prompt


def prompt_values(unit: GenerationUnit) -> dict:
    """The placeholders every stage's prompt shares: who the character is, what happens."""
    return {
        "character": prompts.character_block(unit.profile_version),
        "scenario": prompts.scenario_block(unit.scenario),
        "character_id": unit.character.key,
        "scenario_id": unit.scenario.scenario_id,
    }


# --- calls ----------------------------------------------------------------------------


def recorded_call(
    unit: GenerationUnit, *, stage: str, role: str, system: str, user: str, schema, details=None
) -> llm.CallResult:
    """One structured call, recorded as an LlmCallRecord with the unit's token and cost
    totals updated in the same transaction, before the caller looks at the result."""
    config, prices = _family_setup(unit, role)
    if role == "activation":
        config = at_temperature(config, prompts.ACTIVATION_TEMPERATURE)
    if stage == GenerationStage.RERANKING:
        # L.5.2: re-ranking runs "with reasoning explicitly disabled".
        config = config.with_options(reasoning_effort=prompts.RERANKING_REASONING_EFFORT)
    result = _record(unit, stage, config, prices, system, user, schema, details)
    if temperature_refused(result) and role == "activation":
        # The endpoint takes no temperature: ask again at its default (L.5.1-2).
        result = _record(
            unit,
            stage,
            config.with_options(temperature=None),
            prices,
            system,
            user,
            schema,
            details,
        )
    return result


def _record(unit, stage, config, prices, system, user, schema, details) -> llm.CallResult:
    result = cached_client(config).complete_json(
        system=system, user=user, schema=schema, max_attempts=prompts.STRUCTURED_OUTPUT_ROUNDS
    )
    record_call(
        LlmCallRecord,
        result=result,
        totals=(GenerationUnit, unit.pk),
        prices=prices,
        extra_details=details,
        unit_id=unit.pk,
        stage=stage,
    )
    return result


def call_failure(stage_label: str, result: llm.CallResult) -> StageFailed:
    """The failure of a stage whose call did not return a valid answer."""
    return StageFailed(
        result.error_kind or "internal_error",
        f"{stage_label} failed after {counted(result.attempt_count, 'request')} in "
        f"{counted(result.rounds, 'round')}: {result.failure_reason}",
    )
