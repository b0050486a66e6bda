"""The lab's monthly cap per provider stops a judge run too (issue #36): the claim of the
next call sees the provider's cap reached, the run stops at budget naming the provider and
the cap, its waiting calls wait, and a resume (refused while the cap holds) finishes it
with one verdict per call."""

from decimal import Decimal

import pytest

from adjudication.judging.models import JudgeCall, JudgeRun, JudgeVerdict
from adjudication.judging.services.calls import judge_call_execute
from adjudication.judging.services.runs import (
    JudgeRunError,
    judge_run_create,
    judge_run_resume,
    judge_run_start,
)
from core.llm_runs.models import MonthlySpendingCap
from core.providers import clear_client_cache
from llm.testing.fake_server import DemoResponder, FakeProviderServer
from tests.generation.helpers import family_settings
from tests.judging.helpers import judged_pairs

pytestmark = pytest.mark.django_db

Status = JudgeRun.Status


@pytest.fixture
def dear_judge(settings):
    with FakeProviderServer(responder=DemoResponder(seed=0)) as server:
        families = family_settings(server, timeout=2.0)
        for setup in families.values():
            setup.update(price_in="3000", price_out="15000")
        settings.HEARTBENCH_GENERATION_FAMILIES = families
        yield server
        clear_client_cache()


def test_a_judge_run_stops_at_its_providers_cap_and_resumes(dear_judge):
    judged_pairs(2)
    run = judge_run_create(user=None, name="", provider_family="gpt", seed=3)
    judge_run_start(run_id=run.pk)  # queued on commit: the test runs the calls itself
    MonthlySpendingCap.objects.create(provider="openai", cap_usd=Decimal("1.00"))
    first, *rest = JudgeCall.objects.filter(run=run).order_by("pk")

    judge_call_execute(call_id=first.pk)
    judge_call_execute(call_id=rest[0].pk)

    run.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET
    assert "monthly cap for openai" in run.stop_reason and "cap $1.00" in run.stop_reason
    assert JudgeCall.objects.get(pk=first.pk).status == JudgeCall.Status.SUCCEEDED
    assert {c.status for c in JudgeCall.objects.filter(pk__in=[c.pk for c in rest])} == {
        JudgeCall.Status.PENDING
    }
    with pytest.raises(JudgeRunError, match="monthly cap for openai"):
        judge_run_resume(run_id=run.pk)

    MonthlySpendingCap.objects.update(cap_usd=Decimal("100000"))
    judge_run_resume(run_id=run.pk)
    for call in rest:
        judge_call_execute(call_id=call.pk)

    run.refresh_from_db()
    assert run.status == Status.FINISHED
    calls = JudgeCall.objects.filter(run=run)
    assert JudgeVerdict.objects.filter(call__run=run).count() == calls.count() == 1 + len(rest)
    assert {c.attempts for c in calls} == {1}
