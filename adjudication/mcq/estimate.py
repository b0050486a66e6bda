"""The cost estimate of a screening run before launch (issue #36; the arithmetic is
``core.llm_runs.estimate``).

One judge call per item awaiting screening (a version without a screening open or done),
its prompts built as the worker builds them: ``screening_materials`` of the item and
``screening.build_prompt``, the system prompt with the schema paragraph the client adds
and the output schema itself (sent as the structured-output format), for every item or
an evenly spread sample of ``SAMPLE_ITEMS`` scaled up to all. A rejected answer is
asked again (at most ``MAX_SCREENING_ATTEMPTS`` calls): those retries are what the
margin is for. Prices: ``HEARTBENCH_MCQ_SCREENER_PRICE_IN``/``_OUT``.

Names no judge model or family (the screening pages never do): the row is "Screening
judge".
"""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Exists, OuterRef

from adjudication.mcq import screening
from adjudication.mcq.models import McqItem, McqScreening, McqScreeningCall
from adjudication.mcq.services.item_screening import screening_materials
from adjudication.mcq.services.screening_runs import screener_prices, screener_provider
from core.llm_runs.estimate import (
    PlannedCall,
    RunEstimate,
    estimate_run,
    even_sample,
    past_output_tokens,
)
from llm.structured import schema_instruction

#: Items whose prompts are built; more are scaled up from an even sample.
SAMPLE_ITEMS = 40
#: Output tokens assumed per verdict before any screening call was recorded: four option
#: assessments, six checks and their issues, with short evidence excerpts.
ASSUMED_OUTPUT_TOKENS = 1000
STAGE = "screening"
PROVIDER = "Screening judge"


def items_to_screen():
    """The items a "screen every item awaiting screening" run would take: awaiting
    screening, their current version without a screening open or done."""
    taken = McqScreening.objects.filter(
        item=OuterRef("pk"),
        item_version__number=OuterRef("version"),
        status__in=(*McqScreening.OPEN, McqScreening.Status.DONE),
    )
    return (
        McqItem.objects.filter(status=McqItem.Status.SCREENING)
        .exclude(Exists(taken))
        .select_related("character", "scenario", "reference__source_candidate__profile_version")
        .order_by("pk")
    )


def judge_prompts(item: McqItem) -> tuple[str, str]:
    """(system, user) of the judge's first call about ``item``, as the client sends them."""
    system, user = screening.build_prompt(screening_materials(item))
    return f"{system}\n\n{schema_instruction(screening.OUTPUT_SCHEMA)}", user


def screening_cost_estimate(*, items=None) -> RunEstimate | None:
    """The estimate of screening ``items`` (None: ``items_to_screen``) once each; None
    when no judge is configured or nothing awaits it."""
    if screener_provider() is None:
        return None
    items = list(items_to_screen() if items is None else items)
    if not items:
        return None
    chosen = even_sample(items, SAMPLE_ITEMS)
    prices = screener_prices()
    tokens_out, basis = past_output_tokens(
        McqScreeningCall.objects.all(), assumed=ASSUMED_OUTPUT_TOKENS
    )
    planned = []
    for item in chosen:
        system, user = judge_prompts(item)
        planned.append(
            PlannedCall(
                provider=PROVIDER,
                stage=STAGE,
                system=system,
                user=user,
                schema=screening.OUTPUT_SCHEMA,
                prices=prices,
            )
        )
    return estimate_run(
        planned,
        output_tokens={STAGE: tokens_out},
        scale=Decimal(len(items)) / Decimal(len(chosen)),
        units=len(items),
        units_sampled=len(chosen),
        output_basis={"Verdict": basis},
    )
