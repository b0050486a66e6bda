"""The cost estimate of a memory generation run before launch (issue #36): it is the
arithmetic of the prompts the run sends (read back from its call records' stored
requests) and the configured prices, and the cost a run then records against the fake
provider (real HTTP) falls within its stated margin. The launch page shows it and takes
a budget; a budget that is not an amount is refused and nothing is made."""

import json
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from annotation.memory_generation.estimate import ASSUMED_OUTPUT_TOKENS, memory_cost_estimate
from annotation.memory_generation.models import MemoryBatch, MemoryCallRecord, MemoryRun
from annotation.memory_generation.schema import MEMORY_SCHEMA
from annotation.memory_generation.services.batches import memory_batch_execute
from annotation.memory_generation.services.runs import run_create, run_start
from core.llm_runs.models import MILLION
from tests.factories import UserFactory
from tests.memory_generation.fixtures_runs import frozen_profile, plan_for

pytestmark = pytest.mark.django_db

# HEARTBENCH_MEMORY_PRICE_IN / _OUT of ``memory_env`` (USD per million tokens).
PRICE_IN, PRICE_OUT = Decimal(3), Decimal(15)
SCHEMA_CHARS = len(json.dumps(MEMORY_SCHEMA, separators=(",", ":")))
SCHEMA_INSTRUCTION = "Reply with a single JSON value and nothing else"
CONTEXT = "At the kitchen table after school, with the radio on and my homework spread out."


def run_serially(plan, *, seed=0, capture):
    """A run over ``plan`` whose batches this process runs one after another, largest
    first (the order the run sends them in); all are sent at the start."""
    run = run_create(user=UserFactory(), plan_ids=[plan.pk], concurrency=64, seed=seed)
    with capture(execute=False):  # the test runs the batches
        run_start(run_id=run.pk, user=None)
    for batch in MemoryBatch.objects.filter(run=run).order_by("-slot_count", "index"):
        memory_batch_execute(batch_id=batch.pk)
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.FINISHED
    return run


def sent_tokens(record) -> int:
    """The input tokens of one recorded call, from the request as it was sent: the
    system prompt, the user turn and the schema, four characters a token."""
    body = record.request
    system = body["system"]
    if isinstance(system, list):
        system = "".join(part["text"] for part in system)
    # The client's own paragraph carrying the schema, when it appends one: the schema
    # is counted once, as compact JSON.
    system = system.split(f"\n\n{SCHEMA_INSTRUCTION}", 1)[0]
    content = body["messages"][0]["content"]
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content)
    return math.ceil((len(system) + len(content) + SCHEMA_CHARS) / 4)


def test_the_estimate_is_the_sent_prompts_at_the_configured_prices(
    memory_provider, responder, django_capture_on_commit_callbacks
):
    # Every memory's context has one length, so the estimate's stand-in for the
    # contexts not yet written (the average of those written so far) is exact.
    responder.edit = lambda memory, slot: {**memory, "context": CONTEXT}
    run_serially(
        plan_for(frozen_profile("CHAR_01"), {14: 3, 25: 2}),
        capture=django_capture_on_commit_callbacks,
    )
    first_outputs = list(MemoryCallRecord.objects.values_list("tokens_out", flat=True))
    plan = plan_for(frozen_profile("CHAR_02", neuroticism=0.1), {8: 2, 14: 3, 30: 2})

    cost = memory_cost_estimate(plans=[plan], seed=3)
    run = run_serially(plan, seed=3, capture=django_capture_on_commit_callbacks)

    records = list(MemoryCallRecord.objects.filter(batch__run=run))
    assert len(records) == 7 == cost.calls
    tokens_in = sum(sent_tokens(r) for r in records)
    tokens_out = math.ceil(sum(first_outputs) / len(first_outputs))  # the earlier answers
    expected = (tokens_in * PRICE_IN + 7 * tokens_out * PRICE_OUT) / MILLION
    assert cost.tokens_in == tokens_in
    assert cost.tokens_out == 7 * tokens_out
    assert cost.cost_usd == expected
    assert [(p.provider, p.priced) for p in cost.providers] == [("anthropic", True)]
    assert "average of 5 earlier calls" in cost.output_basis["Memory"]
    # The calls recorded what they cost at the same prices.
    recorded = sum(r.cost_usd for r in records)
    assert recorded == sum(
        (Decimal(r.tokens_in) * PRICE_IN + Decimal(r.tokens_out) * PRICE_OUT) / MILLION
        for r in records
    )


def test_a_run_records_a_cost_within_the_estimates_margin(
    memory_provider, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    before = memory_cost_estimate(plans=[plan_for(frozen_profile("CHAR_03"), {7: 1})])
    assert before.output_basis["Memory"].startswith(f"{ASSUMED_OUTPUT_TOKENS['Memory']:,}")
    run_serially(plan_for(frozen_profile("CHAR_01"), {10: 2, 16: 3}), capture=capture)
    plan = plan_for(frozen_profile("CHAR_02", neuroticism=0.1), {9: 3, 15: 4, 27: 3, 40: 2})

    cost = memory_cost_estimate(plans=[plan])
    run = run_serially(plan, capture=capture)

    recorded = sum(b.cost_usd for b in run.batches.all())
    assert MemoryCallRecord.objects.filter(batch__run=run).count() == cost.calls == 12
    assert recorded > 0
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)


def test_a_provider_without_prices_is_named_on_the_estimate(memory_provider, monkeypatch):
    monkeypatch.delenv("HEARTBENCH_MEMORY_PRICE_IN")
    monkeypatch.delenv("HEARTBENCH_MEMORY_PRICE_OUT")
    cost = memory_cost_estimate(plans=[plan_for(frozen_profile("CHAR_01"), {14: 3})])
    assert cost.unpriced == ["anthropic"] and cost.cost_usd == 0 and cost.calls == 3


# --- the launch page ---------------------------------------------------------------------


def launch_data(plan, **overrides):
    return {
        "plans": [plan.pk],
        "model_name": "",
        "concurrency": 2,
        "seed": 0,
        "tier_a": 0.25,
        "tier_b": 0.35,
        "tier_c": 0.25,
        "tier_d": 0.15,
        "note": "",
        "budget_usd": "",
        **overrides,
    }


def estimate_section(body: str) -> str:
    return body[body.index('data-testid="cost-estimate"') :]


def test_the_launch_page_shows_the_estimate_and_launches_with_a_budget(
    admin_client, memory_provider, django_capture_on_commit_callbacks
):
    plan = plan_for(frozen_profile("CHAR_01"), {14: 3, 25: 2})
    url = reverse("memory_generation:run-new")
    expected = memory_cost_estimate(plans=[plan])

    body = admin_client.get(f"{url}?plans={plan.pk}").content.decode()
    section = estimate_section(body)
    assert 'data-testid="cost-calls">5<' in section and "anthropic" in section
    total = expected.cost_usd.quantize(Decimal("0.0001"), ROUND_HALF_UP)
    assert f'data-testid="cost-total">${total}<' in section
    assert 'name="budget_usd"' in body

    # A change of the form asks again (htmx): the fragment alone, nothing made.
    other = plan_for(frozen_profile("CHAR_02", neuroticism=0.1), {8: 1})
    fragment = admin_client.post(
        url, {**launch_data(other), "estimate": "1"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert fragment.lstrip().startswith('<section id="cost-estimate"')
    assert 'data-testid="cost-calls">1<' in fragment

    review = admin_client.post(url, {**launch_data(plan, budget_usd="2.50"), "review": "1"})
    body = review.content.decode()
    assert 'data-testid="run-budget-confirm">$2.50<' in body
    assert 'data-testid="cost-calls">5<' in estimate_section(body)
    assert MemoryRun.objects.count() == 0

    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(url, {**launch_data(plan, budget_usd="2.50"), "confirm": "1"})
    run = MemoryRun.objects.get()
    assert response.status_code == 302
    assert run.budget_usd == Decimal("2.50") and run.status == MemoryRun.Status.RUNNING
    body = admin_client.get(reverse("memory_generation:run-detail", args=[run.pk])).content
    assert b'data-testid="run-budget">Budget: $2.50<' in body


@pytest.mark.parametrize(
    ("budget", "message"),
    [("-3", "greater than or equal to 0.01"), ("lots", "Enter a number."), ("0", "0.01")],
)
def test_a_bad_budget_is_refused_and_nothing_is_made(
    admin_client, memory_provider, budget, message
):
    plan = plan_for(frozen_profile("CHAR_01"), {14: 3})
    for step in ("review", "confirm"):
        response = admin_client.post(
            reverse("memory_generation:run-new"),
            {**launch_data(plan, budget_usd=budget), step: "1"},
        )
        body = response.content.decode()
        assert response.status_code == 200
        assert message in body and 'id="run-confirm"' not in body
    assert MemoryRun.objects.count() == 0 and MemoryBatch.objects.count() == 0


def test_the_service_refuses_a_budget_that_is_not_an_amount(memory_provider):
    from annotation.memory_generation.services.runs import MemoryGenerationError

    plan = plan_for(frozen_profile("CHAR_01"), {14: 3})
    with pytest.raises(MemoryGenerationError, match="not an amount in USD"):
        run_create(user=UserFactory(), plan_ids=[plan.pk], budget_usd="ten dollars")
    assert MemoryRun.objects.count() == 0


# --- a run stopped at its budget, on its page ----------------------------------------------


def stopped_run(django_capture_on_commit_callbacks):
    plan = plan_for(frozen_profile("CHAR_01"), {8: 2, 14: 3})
    run = run_create(user=UserFactory(), plan_ids=[plan.pk], concurrency=1, budget_usd="0.02")
    with django_capture_on_commit_callbacks(execute=False):
        run_start(run_id=run.pk, user=None)
    first = run.batches.order_by("-slot_count", "index").first()
    memory_batch_execute(batch_id=first.pk)  # costs more than $0.02
    second = run.batches.exclude(pk=first.pk).get()
    memory_batch_execute(batch_id=second.pk)  # held: the run stops at its budget
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.STOPPED_AT_BUDGET
    return run, second


def test_a_stopped_run_says_why_and_resumes_from_its_page(
    admin_client, memory_provider, django_capture_on_commit_callbacks
):
    run, waiting = stopped_run(django_capture_on_commit_callbacks)
    page = reverse("memory_generation:run-detail", args=[run.pk])
    body = admin_client.get(page).content.decode()
    assert "Stopped at its budget of $0.02" in body
    resume = reverse("memory_generation:run-resume", args=[run.pk])
    assert f'action="{resume}"' in body and 'name="budget_usd"' in body
    assert 'id="run-cancel"' in body

    refused = admin_client.post(resume, {"budget_usd": "0.02"})
    assert refused.status_code == 200
    assert "would stop again at once" in refused.content.decode()
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.STOPPED_AT_BUDGET

    with django_capture_on_commit_callbacks(execute=False) as sent:
        response = admin_client.post(resume, {"budget_usd": "500"})
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.RUNNING and run.budget_usd == Decimal("500")
    assert len(sent) == 1  # the waiting batch is sent again
    memory_batch_execute(batch_id=waiting.pk)
    run.refresh_from_db()
    assert run.status == MemoryRun.Status.FINISHED
    assert MemoryCallRecord.objects.filter(batch__run=run).count() == 5


def test_a_stopped_run_can_be_cancelled(
    admin_client, memory_provider, django_capture_on_commit_callbacks
):
    run, waiting = stopped_run(django_capture_on_commit_callbacks)
    response = admin_client.post(reverse("memory_generation:run-cancel", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    waiting.refresh_from_db()
    assert run.status == MemoryRun.Status.CANCELLED
    assert waiting.status == MemoryBatch.Status.CANCELLED and waiting.attempts == 0
    body = admin_client.get(response["Location"]).content.decode()
    assert 'data-status="cancelled"' in body and 'name="budget_usd"' not in body
