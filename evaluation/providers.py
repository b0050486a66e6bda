"""Which models an evaluation run can use: any ``llm/`` provider config.

``HEARTBENCH_EVALUATION_MODELS`` lists names, comma-separated; each name ``X`` is read by
``llm.ProviderConfig.from_env("HEARTBENCH_EVAL_X")`` (``..._KIND``, ``..._MODEL``,
``..._BASE_URL``, ``..._API_KEY``, ...; see llm/README.md). The offline demo provider is
always offered. ``HEARTBENCH_EVAL_X_PRICE_IN`` and ``..._PRICE_OUT`` are the model's prices
in USD per million tokens (issue #36: each call's recorded cost, the launch page's
estimate, a run's budget); unset, the model's calls count as costing nothing. Read at
call time, from this process's environment: the web process lists the choices and
estimates, the worker resolves the run's name (and prices its calls) in its own
environment, and keys never reach the database.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

import llm

MODELS_VARIABLE = "HEARTBENCH_EVALUATION_MODELS"
PREFIX = "HEARTBENCH_EVAL_"
OFFLINE_DEMO = "offline_demo"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,60}$")


def evaluation_providers(environ: Mapping[str, str] | None = None) -> dict[str, llm.ProviderConfig]:
    env = os.environ if environ is None else environ
    providers = {OFFLINE_DEMO: llm.ProviderConfig(kind="offline_demo", model="offline-demo")}
    for raw in (env.get(MODELS_VARIABLE) or "").split(","):
        name = raw.strip()
        if not name or not _NAME.match(name):
            continue
        try:
            providers[name.lower()] = llm.ProviderConfig.from_env(PREFIX + name.upper(), env)
        except ValueError:
            continue  # misconfigured: not offered (the message might quote a key)
    return providers


def model_prices(name: str, environ: Mapping[str, str] | None = None) -> tuple[Decimal, Decimal]:
    """(in, out) USD per million tokens of the evaluation model ``name``
    (``HEARTBENCH_EVAL_<NAME>_PRICE_IN``/``_OUT``); 0 when unset or not a number."""
    env = os.environ if environ is None else environ
    prices = []
    for side in ("PRICE_IN", "PRICE_OUT"):
        try:
            price = Decimal((env.get(f"{PREFIX}{name.upper()}_{side}") or "0").strip())
        except InvalidOperation:
            price = Decimal("0")
        prices.append(price if price.is_finite() and price > 0 else Decimal("0"))
    return prices[0], prices[1]


def answer_format(config: llm.ProviderConfig) -> llm.ResponseFormatMode:
    """How the L.1 answer schema is sent. The system prompt (App. L.1) spells the format
    out and the client is told not to append a schema paragraph, so with ``auto`` an
    OpenAI-compatible endpoint (json_object), Anthropic and Gemini would never see the
    schema; ``auto`` therefore becomes ``json_schema`` (response_format json_schema, a
    forced tool, responseJsonSchema). A config that chose ``json_object`` or ``none``
    (a server without structured output) keeps its choice."""
    if config.response_format is llm.ResponseFormatMode.AUTO:
        return llm.ResponseFormatMode.JSON_SCHEMA
    return config.response_format


def provider_summary(config: llm.ProviderConfig) -> dict:
    """What the run records about its provider: never the key."""
    return {"kind": str(config.kind), "model": config.model, "base_url": config.base_url}
