"""The provider of memory generation and one recorded call per slot (seed 000 App. B.5).

The provider is configured by environment variables ``HEARTBENCH_MEMORY_*`` (``llm``'s
``ProviderConfig.from_env``: KIND, MODEL, API_KEY, BASE_URL, CONCURRENCY, TIMEOUT, ...),
read where the call is made, so a worker process uses its own environment; prices for
the cost estimate are ``HEARTBENCH_MEMORY_PRICE_IN``/``_PRICE_OUT`` in USD per million
tokens (unset: 0, unknown).

A slot's memory is asked for with ``complete_json``, whose rounds send schema problems
back to the model. A schema-valid memory that fails the checks of
``schema.memory_problems`` (the timeline's age, lengths, intensity) is sent back too,
with its problems named, as another call continuing from it; after
``SEMANTIC_ROUNDS`` refused answers the slot fails. Every call is recorded.
"""

import json
import os
from decimal import Decimal, InvalidOperation

import llm
from annotation.memory_generation.models import MemoryBatch, MemoryCallRecord
from annotation.memory_generation.schema import MEMORY_SCHEMA, memory_problems
from core.llm_runs.services import record_call
from core.plurals import counted
from core.providers import cached_client, storable

ENV_PREFIX = "HEARTBENCH_MEMORY"
# Structured-output rounds of one call (invalid JSON, schema problems, cut output).
STRUCTURED_OUTPUT_ROUNDS = 3
# Answers refused by the semantic checks before the slot fails.
SEMANTIC_ROUNDS = 3
NOT_CONFIGURED = "not_configured"
SEMANTIC_INVALID = "semantic_invalid"


class ConfigurationError(Exception):
    """HEARTBENCH_MEMORY_* is set but unusable; the message names the variable."""


class SlotFailed(Exception):
    """A slot could not be filled; its batch fails with ``kind`` and ``message``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


def provider_config(environ=None) -> llm.ProviderConfig | None:
    env = os.environ if environ is None else environ
    if not any(env.get(f"{ENV_PREFIX}_{name}") for name in ("KIND", "MODEL", "BASE_URL")):
        return None
    try:
        return llm.ProviderConfig.from_env(ENV_PREFIX, env)
    except ValueError as error:
        raise ConfigurationError(
            f"The memory generation provider is misconfigured: {error}."
        ) from None


def prices(environ=None) -> tuple[Decimal, Decimal]:
    env = os.environ if environ is None else environ
    out = []
    for name in ("PRICE_IN", "PRICE_OUT"):
        raw = env.get(f"{ENV_PREFIX}_{name}") or "0"
        try:
            out.append(Decimal(raw))
        except InvalidOperation:
            raise ConfigurationError(f"{ENV_PREFIX}_{name} is not a number.") from None
    return out[0], out[1]


def run_config(model_name: str) -> llm.ProviderConfig:
    """This process's provider, with the run's model; SlotFailed when there is none."""
    try:
        config = provider_config()
    except ConfigurationError as error:
        raise SlotFailed(NOT_CONFIGURED, str(error)) from None
    if config is None:
        raise SlotFailed(
            NOT_CONFIGURED,
            f"No memory generation provider is configured in this worker; set "
            f"{ENV_PREFIX}_KIND and {ENV_PREFIX}_MODEL (and _API_KEY or _BASE_URL), restart "
            "the worker and retry the failed batches.",
        )
    if model_name and model_name != config.model:
        config = config.with_options(model=model_name)
    return config


def _record(batch_id, slot, result, *, problems, prices, details) -> MemoryCallRecord:
    semantic = bool(problems)
    return record_call(
        MemoryCallRecord,
        result=result,
        totals=(MemoryBatch, batch_id),
        prices=prices,
        extra_details=details,
        batch_id=batch_id,
        slot=slot,
        ok=result.ok and not semantic,
        problems=list(problems),
        error_kind=SEMANTIC_INVALID if semantic else (result.error_kind or ""),
        error_message=storable("; ".join(problems) if semantic else result.error_message or ""),
    )


def _semantic_feedback(parsed, problems: list[str]) -> str:
    return (
        "\n\nYour previous answer for this slot was:\n"
        + json.dumps(parsed, ensure_ascii=False)
        + "\n\nIt cannot be stored: "
        + " ".join(problems)
        + " Answer again with the corrected JSON object only."
    )


def generate_memory(*, batch_id: int, slot: int, target_age: int, config, system, user):
    """One slot's memory: (parsed memory, its call record). Raises SlotFailed."""
    client = cached_client(config)
    costs = prices()
    asked = user
    problems: list[str] = []
    for round_no in range(1, SEMANTIC_ROUNDS + 1):
        result = client.complete_json(
            system=system, user=asked, schema=MEMORY_SCHEMA, max_attempts=STRUCTURED_OUTPUT_ROUNDS
        )
        problems = memory_problems(result.parsed, target_age=target_age) if result.ok else []
        record = _record(
            batch_id,
            slot,
            result,
            problems=problems,
            prices=costs,
            details={"semantic_round": round_no, "target_age": target_age},
        )
        if not result.ok:
            raise SlotFailed(
                result.error_kind or "internal_error",
                f"Slot {slot} (age {target_age}): the call failed after "
                f"{counted(result.attempt_count, 'request')} in {counted(result.rounds, 'round')}: "
                f"{result.failure_reason}",
            )
        if not problems:
            return result.parsed, record
        asked = user + _semantic_feedback(result.parsed, problems)
    raise SlotFailed(
        SEMANTIC_INVALID,
        f"Slot {slot} (age {target_age}): the model's memory was refused "
        f"{SEMANTIC_ROUNDS} times; last problems: {' '.join(problems)}",
    )
