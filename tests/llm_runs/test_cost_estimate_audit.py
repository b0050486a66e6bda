"""The cost estimate of a memory audit run before launch (issue #36): the repair loop's
prompts, built with the loop's own builders for the memories the checks flag, at four
characters a token times the configured repair prices, with the stated output
assumption. It equals that arithmetic over the prompts the run then sends (its call
records), and the cost a run records against the fake provider (real HTTP on loopback),
re-checks by the classifier included, falls within the estimate's margin."""

import json
import math
from decimal import Decimal

import pytest

from audit.memory_quality import repair
from audit.memory_quality.estimate import ASSUMED_OUTPUT_TOKENS, audit_cost_estimate
from audit.memory_quality.models import AuditCall, MemoryCase, RepairAttempt
from core.llm_runs.models import MILLION
from core.roles import Role
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory

from .audit_helpers import answer, audit_and_repair, configure, flagged_corpus

pytestmark = pytest.mark.django_db

KEYS = ["CHAR_01", "CHAR_02", "CHAR_03"]


@pytest.fixture
def server():
    with FakeProviderServer(responder=answer) as server:
        yield server


@pytest.fixture
def admin():
    return UserFactory(roles=[Role.ADMIN])


def tokens(system: str, user: str, schema) -> int:
    schema_chars = len(json.dumps(schema, separators=(",", ":")))
    return math.ceil((len(system) + len(user) + schema_chars) / 4)


def test_the_estimate_is_the_arithmetic_of_the_repair_prompts_the_run_sends(
    settings, server, admin
):
    configure(settings, server)
    flagged_corpus(KEYS)

    cost = audit_cost_estimate()
    run = audit_and_repair(user=admin)

    # The premise: each flagged memory has one defect, repaired at the first attempt.
    cases = list(run.cases.all())
    assert len(cases) == 3 and all(len(c.initial_criteria) == 1 for c in cases)
    assert {c.status for c in cases} == {MemoryCase.Status.REPAIRED}
    calls = list(AuditCall.objects.filter(run=run, kind="repair"))
    assert len(calls) == RepairAttempt.objects.filter(case__run=run).count() == 3
    expected_in, expected_cost = 0, Decimal(0)
    for call in calls:
        attempt = RepairAttempt.objects.get(call=call)
        # What the provider was sent, read back from the call's stored request.
        system, user = repair.stored_prompt(call.request)
        assert (system, user) == (attempt.system_prompt, attempt.user_prompt)
        sent = tokens(system, user, repair.repair_schema(attempt.fields))
        expected_in += sent
        expected_cost += Decimal(sent) * 3 + Decimal(ASSUMED_OUTPUT_TOKENS["repair"]) * 15
    expected_cost /= MILLION

    (row,) = cost.providers
    assert row.provider == "Repair model (openai)" and row.priced
    assert row.calls == 3
    assert row.tokens_in == expected_in
    assert row.tokens_out == 3 * ASSUMED_OUTPUT_TOKENS["repair"]
    assert cost.cost_usd == expected_cost > 0
    assert cost.cost_low == expected_cost * Decimal("0.7")
    assert cost.cost_high == expected_cost * Decimal("1.3")
    # Each call's recorded cost is its recorded tokens at the configured prices.
    for call in calls:
        assert (
            call.cost_usd == (Decimal(call.tokens_in) * 3 + Decimal(call.tokens_out) * 15) / MILLION
        )


def test_a_larger_corpus_is_estimated_from_an_even_sample_scaled_up(settings, server):
    configure(settings, server)
    flagged_corpus([f"CHAR_{n:02d}" for n in range(1, 7)])

    cost = audit_cost_estimate()

    assert (cost.units, cost.units_sampled) == (6, 3) and cost.sampled
    # Three sampled characters with one flagged memory each, scaled by 12 / 6 memories.
    assert cost.calls == 6


def test_no_repair_model_no_estimate(settings, server):
    configure(settings, server)
    settings.HEARTBENCH_AUDIT_REPAIR_PROVIDER = None
    flagged_corpus(KEYS)
    assert audit_cost_estimate() is None


def test_a_run_records_a_cost_within_the_estimates_margin(settings, server, admin):
    configure(settings, server, classifier=True)
    flagged_corpus(["CHAR_01", "CHAR_02"])
    assert "assumed" in audit_cost_estimate().output_basis["Repair"]
    # An earlier run: its answers' average stands in for the assumed output tokens.
    audit_and_repair(user=admin, keys=["CHAR_01", "CHAR_02"])
    later = ["CHAR_03", "CHAR_04"]
    flagged_corpus(later)

    cost = audit_cost_estimate(character_keys=later)
    run = audit_and_repair(user=admin, keys=later)

    assert "average of" in cost.output_basis["Repair"]
    assert "average of" in cost.output_basis["Classifier"]
    assert [row.provider for row in cost.providers] == [
        "Repair model (openai)",
        "Classifier (anthropic)",
    ]
    # Per flagged memory: one repair and its re-check on each of the six criteria, each
    # call recorded with its cost.
    calls = AuditCall.objects.filter(run=run)
    assert calls.filter(kind="repair").count() == 2
    assert calls.filter(kind="classifier").count() == 12
    assert calls.count() == cost.calls
    recorded = sum(u.cost_usd for u in run.units.all())
    assert recorded == sum(c.cost_usd for c in calls) > 0
    assert cost.cost_low <= recorded <= cost.cost_high, (recorded, cost.cost_usd)
