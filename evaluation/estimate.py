"""The cost estimate of an evaluation run before launch (issue #36; the arithmetic is
``core.llm_runs.estimate``).

One call per item: the system prompt and the item's user prompt, built with the run's
own builders (``services.prompt_input``, ``prompt.user_prompt``) for every item of the
set or an evenly spread sample of ``SAMPLE_ITEMS`` scaled up to all, and the answer
schema where the model is sent it (``providers.answer_format``). The memory block of a
memory setting is the item's stored retrieval set under the chosen retriever and k when
one exists (the run reuses it), else the first k of the memories it may retrieve from
(the character's audited memories at or before the scenario age): the same number of
entries of the same corpus, so about the same length. An item the run cannot ask (no
profile; a disclosed setting without a frozen one) makes no call.

Output tokens per answer: the average of the model's earlier successful evaluation
calls, else ``ASSUMED_OUTPUT_TOKENS`` (capped at the run's max output tokens).
Prices: ``HEARTBENCH_EVAL_<NAME>_PRICE_IN``/``_OUT`` (``providers.model_prices``).
"""

from __future__ import annotations

from decimal import Decimal

import llm
from core.llm_runs.estimate import (
    PlannedCall,
    RunEstimate,
    average_output_tokens,
    estimate_run,
    even_sample,
)

from . import prompt, providers, retrieval, services
from .models import (
    ABLATION_SETTINGS,
    MEMORY_SETTINGS,
    PROFILE_SETTINGS,
    EvaluationCall,
    RetrievalSet,
    Setting,
)

#: Items whose prompts are built; a larger set is scaled up from an even sample.
SAMPLE_ITEMS = 40
#: Output tokens assumed per answer before a model's first recorded call: the App. L.1
#: answer (impulse, analysis, plan, inner consciousness, decision, choice) in a few
#: sentences each. A reasoning model's hidden reasoning comes on top.
ASSUMED_OUTPUT_TOKENS = 400


def memory_entries(item, *, setting: str, method: str, k: int) -> list[str] | None:
    """The memory block the run is assumed to send for ``item`` (None: no block)."""
    if setting not in MEMORY_SETTINGS:
        return None
    if setting not in ABLATION_SETTINGS:
        stored = (
            RetrievalSet.objects.filter(
                item=item,
                method=method,
                k=k,
                origin="builtin",
                query=retrieval.retrieval_query(item.scenario),
            )
            .order_by("-created_at")
            .first()
        )
        if stored is not None:
            return retrieval.memory_block_entries(stored)
    memories = retrieval.eligible_memories(item.character, item.scenario.age)[:k]
    return [retrieval.format_entry(m.anonymized_id, m.timeline, m.content_full) for m in memories]


def item_prompt(item, *, setting: str, method: str, k: int) -> str | None:
    """The user prompt of ``item`` in a run of ``setting``; None when the run would
    make no call for it."""
    profile = services.profile_for(item.character)
    if profile is None or (setting in PROFILE_SETTINGS and not profile.is_frozen):
        return None
    entries = memory_entries(item, setting=setting, method=method, k=k)
    data = services.prompt_input(item, setting=setting, profile=profile, memory_entries=entries)
    return prompt.user_prompt(data)


def model_label(name: str, config: llm.ProviderConfig) -> str:
    """How the estimate names an evaluation model: "gpt (openai, gpt-5.4)"."""
    return f"{name} ({config.kind.value}, {config.model})"


def evaluation_cost_estimate(
    *,
    setting: str = Setting.NO_RETRIEVAL,
    items=None,
    retrieval_method: str = RetrievalSet.Method.BM25,
    k: int = services.NAIVE_RAG_K,
    models=None,
    max_tokens: int | None = None,
) -> RunEstimate | None:
    """The estimate of a run of ``setting`` over ``items`` (None: every final item), one
    row per configured model in ``models`` (None: every configured model; a run uses
    one). None when there is no item or no such model."""
    configs = providers.evaluation_providers()
    names = [name for name in (models or sorted(configs)) if name in configs]
    items = services.final_items() if items is None else items
    if hasattr(items, "select_related"):
        items = items.select_related("character", "scenario")
    items = list(items)
    if not names or not items:
        return None
    chosen = even_sample(sorted(items, key=lambda item: item.pk), SAMPLE_ITEMS)
    cap = int(max_tokens or services.DEFAULT_DECODING["max_tokens"])
    output_tokens, basis = average_output_tokens(
        EvaluationCall.objects.filter(prediction__run__provider_key__in=names),
        stage_field="prediction__run__provider_key",
        assumed={name: min(ASSUMED_OUTPUT_TOKENS, cap) for name in names},
    )
    users = [
        item_prompt(item, setting=setting, method=retrieval_method, k=int(k)) for item in chosen
    ]
    planned = []
    for name in names:
        config = configs[name]
        sends_schema = providers.answer_format(config) is llm.ResponseFormatMode.JSON_SCHEMA
        planned += [
            PlannedCall(
                provider=model_label(name, config),
                stage=name,
                system=prompt.SYSTEM_PROMPT,
                user=user,
                schema=prompt.RESPONSE_SCHEMA if sends_schema else None,
                prices=providers.model_prices(name),
            )
            for user in users
            if user is not None
        ]
    return estimate_run(
        planned,
        output_tokens=output_tokens,
        scale=Decimal(len(items)) / Decimal(len(chosen)),
        units=len(items),
        units_sampled=len(chosen),
        output_basis={name: basis[name] for name in names},
    )
