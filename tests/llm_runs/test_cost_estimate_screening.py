"""The cost estimate of an MCQ screening run before launch (issue #36): it is the
arithmetic of the prompts the judge is then sent (as the fake provider received them,
real HTTP) and the configured prices (HEARTBENCH_MCQ_SCREENER_PRICE_IN/_OUT), and the
cost a run then records falls within the estimate's margin."""

import json
import math
from decimal import Decimal

import pytest

from adjudication.mcq.estimate import ASSUMED_OUTPUT_TOKENS, PROVIDER, screening_cost_estimate
from adjudication.mcq.models import McqItem, McqScreeningCall
from adjudication.mcq.services import item_assembly, item_screening, screening_runs
from core.llm_runs.models import MILLION
from core.roles import Role
from tests.mcq.conftest import (  # noqa: F401
    fake_server,
    judge,
    person,
    references,
    role_groups,
    scenario,
)
from tests.mcq.test_worker import honest_judge

pytestmark = pytest.mark.django_db

PRICE_IN, PRICE_OUT = Decimal("3"), Decimal("15")


def assemble(references, *keys):  # noqa: F811
    items = [
        item_assembly.mcq_item_assemble(
            reference_id=references[key].pk, selector=False, dispatch=False
        )
        for key in keys
    ]
    assert {item.status for item in items} == {McqItem.Status.SCREENING}
    return items


def priced(monkeypatch, price_in=PRICE_IN, price_out=PRICE_OUT):
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_IN", str(price_in))
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_OUT", str(price_out))


def screen_everything(user):
    """A run of every item awaiting screening, each screened in this process."""
    run = screening_runs.screening_run_for_everything_awaiting(user=user)
    for unit in run.screenings.order_by("pk"):
        item_screening.mcq_screening_unit_execute(screening_id=unit.pk)
    run.refresh_from_db()
    return run


def sent_tokens_in(requests) -> list[int]:
    """Each received request's system prompt, user prompt and schema (compact JSON) in
    characters over four, rounded up: an independent count of what was sent."""
    counts = []
    for req in requests:
        user = "\n".join(text for role, text in req.turns() if role == "user")
        schema = json.dumps(req.schema(), separators=(",", ":")) if req.schema() else ""
        counts.append(math.ceil((len(req.system) + len(user) + len(schema)) / 4))
    return counts


def test_the_estimate_is_the_sent_prompts_characters_over_four_times_the_prices(
    references,  # noqa: F811
    judge,  # noqa: F811
    person,  # noqa: F811
    monkeypatch,
):
    priced(monkeypatch)
    judge.responder = honest_judge
    assemble(references, "CHAR_01", "CHAR_05")

    cost = screening_cost_estimate()
    run = screen_everything(person(Role.ADMIN))

    assert run.status == run.Status.FINISHED
    tokens_in = sent_tokens_in(judge.requests)
    assert len(tokens_in) == 2  # one judge call per item: each answer passed
    expected = sum(
        (Decimal(t) * PRICE_IN + Decimal(ASSUMED_OUTPUT_TOKENS) * PRICE_OUT for t in tokens_in),
        Decimal(0),
    )
    expected /= MILLION
    assert [row.provider for row in cost.providers] == [PROVIDER]
    assert (cost.calls, cost.units, cost.sampled) == (2, 2, False)
    assert cost.tokens_in == sum(tokens_in)
    assert cost.cost_usd == expected
    assert cost.unpriced == []
    # Each call recorded its cost at the configured prices.
    for call in McqScreeningCall.objects.filter(screening__run=run):
        in_cost = call.tokens_in * PRICE_IN + call.tokens_out * PRICE_OUT
        assert call.cost_usd == (in_cost / MILLION).quantize(Decimal("0.000001")) > 0
    # Nothing awaits screening any more: nothing to estimate.
    assert screening_cost_estimate() is None


def test_a_screening_run_records_a_cost_within_the_estimates_margin(
    references,  # noqa: F811
    judge,  # noqa: F811
    person,  # noqa: F811
    monkeypatch,
):
    priced(monkeypatch)
    judge.responder = honest_judge
    admin = person(Role.ADMIN)
    assemble(references, "CHAR_01", "CHAR_05")
    screen_everything(admin)  # the judge's answers are now known
    assemble(references, "CHAR_04", "CHAR_06")
    cost = screening_cost_estimate()
    assert "average of 2 earlier calls" in cost.output_basis["Verdict"]

    run = screen_everything(admin)

    recorded = sum(unit.cost_usd for unit in run.screenings.all())
    assert McqScreeningCall.objects.filter(screening__run=run).count() == cost.calls == 2
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)


def test_no_price_configured_is_named(references, judge):  # noqa: F811
    assemble(references, "CHAR_01")

    cost = screening_cost_estimate()

    assert cost.unpriced == [PROVIDER] and cost.cost_usd == 0 and cost.calls == 1
