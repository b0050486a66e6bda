"""The cost estimate of a judge run before launch (issue #36): per family the judge may
use, the verdict prompts of every eligible pair at four characters a token times that
family's prices, with the stated output assumption; shown on the launch page."""

import json
import math
from decimal import Decimal

import pytest
from django.urls import reverse

from adjudication.judging import prompts
from adjudication.judging.estimate import ASSUMED_OUTPUT_TOKENS, judge_cost_estimate
from adjudication.judging.selectors import judge_eligible_pairs, judge_materials
from core.llm_runs.models import MILLION
from tests.generation.helpers import family_settings
from tests.judging.helpers import judged_pairs

pytestmark = pytest.mark.django_db


class _Server:
    def base_url(self, kind):
        return f"http://127.0.0.1:9/{kind}"


@pytest.fixture(autouse=True)
def providers(settings):
    families = family_settings(_Server(), families=("claude", "gpt"))
    families["gpt"].update(price_in="2", price_out="8")
    settings.HEARTBENCH_GENERATION_FAMILIES = families
    return families


def test_the_estimate_is_the_verdict_prompts_over_four_times_each_familys_prices():
    pairs, people_ = judged_pairs(3)
    schema = len(json.dumps(prompts.VERDICT_SCHEMA, separators=(",", ":")))
    tokens_in = 0
    for pair in pairs:
        order = [c.pk for c in pair.candidates.all()]
        user = prompts.user_prompt(judge_materials(pair=pair, permutation=order))
        tokens_in += math.ceil((len(prompts.system_prompt()) + len(user) + schema) / 4)
    tokens_out = 3 * ASSUMED_OUTPUT_TOKENS

    cost = judge_cost_estimate(pairs=judge_eligible_pairs())

    claude, gpt = cost.providers
    assert (claude.provider, gpt.provider) == ("Claude (anthropic)", "GPT (openai)")
    assert claude.calls == gpt.calls == 3
    assert claude.tokens_in == gpt.tokens_in == tokens_in
    assert claude.cost_usd == (Decimal(tokens_in) * 3 + Decimal(tokens_out) * 15) / MILLION
    assert gpt.cost_usd == (Decimal(tokens_in) * 2 + Decimal(tokens_out) * 8) / MILLION


def test_the_launch_page_shows_the_estimate_per_family(client):
    _, people_ = judged_pairs(2)
    client.force_login(people_["admin"])
    body = client.get(reverse("judging:launch")).content.decode()
    estimate = body[body.index('data-testid="cost-estimate"') :]
    assert "Claude (anthropic)" in estimate and "GPT (openai)" in estimate
    assert estimate.count('data-testid="cost-calls">2<') == 2
    assert 'data-testid="cost-total"' not in estimate  # alternatives, not a sum
