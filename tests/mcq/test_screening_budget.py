"""The lab's monthly cap per provider stops an MCQ screening run too (issue #36): once the
screening judge's provider has reached its cap, the next screening is not taken up, the
run stops at budget naming the provider and the cap, and a resume (refused while the cap
holds) screens the rest, each item once."""

from decimal import Decimal

import pytest

from adjudication.mcq.models import McqError, McqItem, McqScreening, McqScreeningRun
from adjudication.mcq.services import item_assembly, item_screening, screening_runs
from core.llm_runs.models import MonthlySpendingCap
from core.roles import Role

from .test_worker import honest_judge

pytestmark = pytest.mark.django_db
Unit = McqScreening.Status
Run = McqScreeningRun.Status


@pytest.fixture
def items(references):
    return [
        item_assembly.mcq_item_assemble(
            reference_id=references[key].pk, selector=False, dispatch=False
        )
        for key in ("CHAR_01", "CHAR_05")
    ]


def test_a_screening_run_stops_at_its_providers_cap_and_resumes(items, judge, person, monkeypatch):
    # Prices high enough that one screening costs more than the cap.
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_IN", "3000")
    monkeypatch.setenv("HEARTBENCH_MCQ_SCREENER_PRICE_OUT", "15000")
    judge.responder = honest_judge
    MonthlySpendingCap.objects.create(provider="anthropic", cap_usd=Decimal("1.00"))
    run = screening_runs.screening_run_for_everything_awaiting(user=person(Role.ADMIN))
    first, second = run.screenings.order_by("pk")

    item_screening.mcq_screening_unit_execute(screening_id=first.pk)
    item_screening.mcq_screening_unit_execute(screening_id=second.pk)

    run.refresh_from_db()
    assert run.status == Run.STOPPED_AT_BUDGET
    assert "monthly cap for anthropic" in run.stop_reason and "cap $1.00" in run.stop_reason
    assert McqScreening.objects.get(pk=first.pk).status == Unit.DONE
    assert McqScreening.objects.get(pk=second.pk).status == Unit.PENDING
    with pytest.raises(McqError, match="monthly cap for anthropic"):
        screening_runs.screening_run_resume(run_id=run.pk)

    MonthlySpendingCap.objects.update(cap_usd=Decimal("100000"))
    screening_runs.screening_run_resume(run_id=run.pk)
    item_screening.mcq_screening_unit_execute(screening_id=second.pk)

    run.refresh_from_db()
    assert run.status == Run.FINISHED
    assert set(run.screenings.values_list("status", flat=True)) == {Unit.DONE}
    assert {i.status for i in McqItem.objects.filter(pk__in=[i.pk for i in items])} != {
        McqItem.Status.SCREENING
    }
    assert all(s.calls.count() == 1 for s in run.screenings.all())
