"""The cost estimate of a generation run before launch (issue #36): it is the arithmetic
of the prompts the run will send and the configured prices, and the cost a run then
records against the fake provider (real HTTP) falls within its stated margin."""

import json
import math
from decimal import Decimal

import pytest

from annotation.corpus.models import ProfileVersion
from annotation.generation import prompts
from annotation.generation.estimate import ASSUMED_OUTPUT_TOKENS, generation_cost_estimate
from annotation.generation.models import GenerationUnit, LlmCallRecord
from annotation.generation.selectors import generation_pair_gates
from annotation.generation.services.runs import _latest_prompt, generation_run_create
from annotation.generation.services.units import generation_unit_execute
from core.llm_runs.models import MILLION
from tests.factories import UserFactory
from tests.generation.helpers import frozen_character, scenario

pytestmark = pytest.mark.django_db

FAMILIES = ["claude", "gpt"]


def corpus(memories=12):
    characters = [
        frozen_character(f"CHAR_0{n}", ages=[6 + (i % 9) for i in range(memories)]) for n in (1, 2)
    ]
    scenarios = [scenario("SCN_SCHOOL_AGE_1", age=8), scenario("SCN_SCHOOL_AGE_2", age=13)]
    return characters, scenarios


def estimate(families=FAMILIES):
    return generation_cost_estimate(families=families, gates=generation_pair_gates())


def sent_prompts(characters, scenarios):
    """Every (stage, system, user, schema) one unit of each pair sends when screening
    keeps every memory it is offered, rendered here from the prompt versions."""
    calls = []
    for character in characters:
        profile = ProfileVersion.objects.get(character=character)
        memories = list(character.memories.order_by("event_age", "sequence"))
        for scn in scenarios:
            eligible = [m for m in memories if m.event_age <= scn.age]
            base = {
                "character": prompts.character_block(profile),
                "scenario": prompts.scenario_block(scn),
                "character_id": character.key,
                "scenario_id": scn.scenario_id,
            }
            screening = {
                **base,
                "memories": "\n".join(prompts.screening_memory_line(m) for m in eligible),
                "budget": prompts.screening_budget(len(eligible), len(eligible)),
                "batch_label": f"batch 1 of 1, {len(eligible)} memories",
            }
            response = {
                **base,
                "memories": "\n".join(prompts.response_memory_line(m) for m in eligible),
            }
            for stage, values, schema in (
                ("screening", screening, prompts.SCREENING_SCHEMA),
                ("response", response, prompts.RESPONSE_SCHEMA),
            ):
                version = _latest_prompt(stage)
                calls.append(
                    (
                        stage,
                        prompts.render(version.system_template, values),
                        prompts.render(version.user_template, values),
                        schema,
                    )
                )
    return calls


def test_the_estimate_is_the_prompts_characters_over_four_times_the_prices(providers):
    characters, scenarios = corpus()
    calls = sent_prompts(characters, scenarios)
    expected_cost = Decimal(0)
    expected_in = 0
    for stage, system, user, schema in calls:
        tokens_in = math.ceil(
            (len(system) + len(user) + len(json.dumps(schema, separators=(",", ":")))) / 4
        )
        tokens_out = ASSUMED_OUTPUT_TOKENS[stage]
        price_in, price_out = (1, 5) if stage == "screening" else (3, 15)
        expected_in += tokens_in
        # Both families carry the same prices in the test settings.
        expected_cost += 2 * (Decimal(tokens_in) * price_in + Decimal(tokens_out) * price_out)
    expected_cost /= MILLION

    cost = estimate()

    assert cost.calls == 2 * len(calls) == 16
    assert cost.tokens_in == 2 * expected_in
    assert cost.cost_usd == expected_cost
    assert [row.provider for row in cost.providers] == ["Claude (anthropic)", "GPT (openai)"]
    assert all(row.priced for row in cost.providers)
    assert cost.cost_low == expected_cost * Decimal("0.7")
    assert cost.cost_high == expected_cost * Decimal("1.3")


def test_the_estimated_prompts_are_the_ones_the_run_sends(providers, fake_server):
    characters, scenarios = corpus()
    run = generation_run_create(user=UserFactory(), families=["gpt"])
    run.status = run.Status.RUNNING
    run.save()
    for unit in GenerationUnit.objects.filter(run=run):
        generation_unit_execute(unit_id=unit.pk)

    sent = sorted(turn for req in fake_server.requests for role, turn in req.turns())
    assert sent == sorted(user for _, _, user, _ in sent_prompts(characters, scenarios))


def test_a_run_records_a_cost_within_the_estimates_margin(providers, fake_server):
    corpus(memories=30)
    user = UserFactory()

    def run_all():
        run = generation_run_create(user=user, families=FAMILIES)
        run.status = run.Status.RUNNING
        run.save()
        for unit in GenerationUnit.objects.filter(run=run):
            generation_unit_execute(unit_id=unit.pk)
        return run, sum(u.cost_usd for u in run.units.all())

    # Before any call, the output is an assumption; after one run, the earlier calls'
    # average answers for it.
    assert "assumed" in estimate().output_basis["Response generation"]
    run_all()
    cost = estimate()
    assert "average of" in cost.output_basis["Response generation"]

    run, recorded = run_all()

    assert LlmCallRecord.objects.filter(unit__run=run).count() == cost.calls
    assert recorded > 0
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)


def test_a_family_without_prices_is_named_on_the_estimate(providers):
    corpus()
    providers["gpt"].update(
        price_in="0", price_out="0", activation_price_in="0", activation_price_out="0"
    )

    cost = estimate()

    assert cost.unpriced == ["GPT (openai)"]
    gpt = next(row for row in cost.providers if row.provider == "GPT (openai)")
    assert gpt.cost_usd == 0 and gpt.calls == 8
