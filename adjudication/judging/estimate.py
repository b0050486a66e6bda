"""The cost estimate of a judge run before launch (issue #36; the arithmetic is
``core.llm_runs.estimate``).

The prompts are the ones a judge call sends (``prompts.system_prompt``,
``prompts.user_prompt`` of the pair's materials), built for every eligible pair or an even
sample of ``SAMPLE_PAIRS`` scaled up, with the candidates in their stored order: another
order holds the same text, lettered differently. A row per configured provider family
says what one order per pair costs if that family judges; a run uses one family.

!!! BLINDING !!!  Admin-facing only: names model families.
"""

from django.db.models import prefetch_related_objects

from adjudication.judging import prompts
from adjudication.judging.models import JudgeCallRecord
from adjudication.judging.selectors import judge_materials
from adjudication.judging.services.calls import judge_prices
from adjudication.judging.services.runs import judge_provider_configs
from annotation.generation.models import ModelFamily
from core.llm_runs.estimate import PlannedCall, estimate_run, even_sample, past_output_tokens

#: Pairs whose prompts are built; more are scaled up from an even sample.
SAMPLE_PAIRS = 40
#: Output tokens assumed per verdict before any judge call was recorded: the fields of an
#: annotator's judgment (three ratings, a ranking, short reasons).
ASSUMED_OUTPUT_TOKENS = 400
STAGE = "judge"


def judge_cost_estimate(*, pairs):
    """The estimate of judging ``pairs`` (one order each) per configured family; None
    when there is no pair or no provider."""
    configs = judge_provider_configs()
    pairs = list(pairs)
    if not pairs or not configs:
        return None
    chosen = even_sample(pairs, SAMPLE_PAIRS)
    prefetch_related_objects(chosen, "candidates")
    system = prompts.system_prompt()
    tokens_out, basis = past_output_tokens(
        JudgeCallRecord.objects.all(), assumed=ASSUMED_OUTPUT_TOKENS
    )
    planned = []
    for pair in chosen:
        order = [c.pk for c in pair.candidates.all()]
        user = prompts.user_prompt(judge_materials(pair=pair, permutation=order))
        for family in ModelFamily.values:
            if family not in configs:
                continue
            label = f"{ModelFamily(family).label} ({configs[family].kind.value})"
            planned.append(
                PlannedCall(
                    provider=label,
                    stage=STAGE,
                    system=system,
                    user=user,
                    schema=prompts.VERDICT_SCHEMA,
                    prices=judge_prices(family),
                )
            )
    return estimate_run(
        planned,
        output_tokens={STAGE: tokens_out},
        scale=len(pairs) / len(chosen),
        units=len(pairs),
        units_sampled=len(chosen),
        output_basis={"Verdict": basis},
    )
