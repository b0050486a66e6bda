"""The cost estimate before an audit run counts the fact check's calls when the check is
on: one extraction per flagged memory and one check per attempt, at the repair model's
prices; the run then makes as many (counted from its call records)."""

from decimal import Decimal

import pytest

from audit.memory_quality.estimate import ASSUMED_OUTPUT_TOKENS, audit_cost_estimate
from audit.memory_quality.models import AuditCall, MemoryCase
from core.roles import Role
from llm.testing.fact_check import FactCheckResponder
from llm.testing.fake_server import FakeProviderServer
from tests.factories import UserFactory
from tests.llm_runs.audit_helpers import audit_and_repair, configure, flagged_corpus
from tests.memory_quality.conftest import CLEAN

pytestmark = pytest.mark.django_db

KEYS = ["CHAR_01", "CHAR_02", "CHAR_03"]


def test_the_estimate_counts_the_fact_check_calls_the_run_makes(settings):
    with FakeProviderServer(responder=FactCheckResponder(lambda r: {"content_full": CLEAN})) as s:
        configure(settings, s)
        flagged_corpus(KEYS, clean=False)
        settings.HEARTBENCH_AUDIT_FACT_CHECK = False
        without = audit_cost_estimate()
        settings.HEARTBENCH_AUDIT_FACT_CHECK = True
        cost = audit_cost_estimate()
        run = audit_and_repair(user=UserFactory(roles=[Role.ADMIN]))

    assert {c.status for c in run.cases.all()} == {MemoryCase.Status.REPAIRED}
    recorded = list(AuditCall.objects.filter(run=run).values_list("kind", flat=True))
    assert sorted(recorded) == sorted(["repair", "fact_extract", "fact_check"] * 3)
    ((before,), (row,)) = without.providers, cost.providers
    assert before.calls == 3 and row.calls == len(recorded) == 9
    assert row.provider == "Repair model (openai)" and row.priced
    per_memory = sum(ASSUMED_OUTPUT_TOKENS[k] for k in ("repair", "fact_extract", "fact_check"))
    assert row.tokens_out == 3 * per_memory
    assert row.tokens_in > before.tokens_in
    # Priced as repair calls: (in, out) = (3, 15) USD per million tokens.
    expected = (Decimal(row.tokens_in) * 3 + Decimal(row.tokens_out) * 15) / 1_000_000
    assert row.cost_usd == expected
