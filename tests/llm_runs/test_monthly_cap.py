"""The lab's monthly spending cap per provider (issue #36): the month's spend is the sum of
every stage's recorded call costs since the first of the month (UTC); a run whose
provider reached its cap stops the way a run at its budget does, naming the provider
and the cap."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from annotation.generation.models import GenerationRun, GenerationUnit, LlmCallRecord
from annotation.generation.services.runs import (
    GenerationError,
    generation_run_create,
    generation_run_resume,
)
from annotation.generation.services.units import generation_unit_execute
from audit.memory_quality.models import AuditCall, AuditRun
from core.llm_runs.models import MonthlySpendingCap
from core.llm_runs.spending import month_spend
from tests.factories import UserFactory
from tests.generation.helpers import frozen_character, scenario

pytestmark = pytest.mark.django_db

Status = GenerationRun.Status


@pytest.fixture
def dear_providers(providers):
    """Prices high enough that one unit costs a few dollars."""
    for setup in providers.values():
        setup.update(
            price_in="3000",
            price_out="15000",
            activation_price_in="1000",
            activation_price_out="5000",
        )
    return providers


def running_run(families=("gpt",)):
    for n in (1, 2):
        frozen_character(f"CHAR_0{n}", ages=[6, 7, 8, 9])
    scenario("SCN_SCHOOL_AGE_1", age=10)
    run = generation_run_create(user=UserFactory(), families=list(families))
    run.status = Status.RUNNING
    run.save()
    return run


def test_the_months_spend_counts_every_stages_calls_of_this_month_only(providers):
    def call(model, cost, *, provider="openai", created_at=None, **fields):
        row = model.objects.create(
            provider=provider, model="m", ok=True, cost_usd=Decimal(cost), **fields
        )
        if created_at:
            model.objects.filter(pk=row.pk).update(created_at=created_at)

    run = running_run()
    unit = run.units.first()
    call(LlmCallRecord, "1.25", unit=unit, stage="response", prompt_hash="h")
    call(LlmCallRecord, "9", provider="anthropic", unit=unit, stage="response", prompt_hash="h")
    last_month = timezone.now().replace(day=1) - datetime.timedelta(days=2)
    call(LlmCallRecord, "100", created_at=last_month, unit=unit, stage="response", prompt_hash="h")
    # Another stage's calls count too.
    call(
        AuditCall,
        "0.5",
        run=AuditRun.objects.first(),
        kind=AuditCall.Kind.values[0],
        prompt_hash="h",
    )

    assert month_spend("openai") == Decimal("1.75")
    assert month_spend("anthropic") == Decimal("9")
    assert month_spend("gemini") == 0


def test_a_run_stops_when_its_provider_reaches_the_monthly_cap(dear_providers, fake_server):
    run = running_run()
    MonthlySpendingCap.objects.create(provider="openai", cap_usd=Decimal("1.00"))
    first, second = GenerationUnit.objects.filter(run=run).order_by("pk")

    generation_unit_execute(unit_id=first.pk)  # nothing spent yet this month: it runs
    generation_unit_execute(unit_id=second.pk)

    run.refresh_from_db()
    second.refresh_from_db()
    assert run.status == Status.STOPPED_AT_BUDGET
    assert "monthly cap for openai" in run.stop_reason
    assert "cap $1.00" in run.stop_reason
    assert second.status == GenerationUnit.Status.PENDING and second.attempts == 0

    with pytest.raises(GenerationError, match="monthly cap for openai"):
        generation_run_resume(run_id=run.pk)

    MonthlySpendingCap.objects.filter(provider="openai").update(cap_usd=Decimal("100000"))
    generation_run_resume(run_id=run.pk)
    generation_unit_execute(unit_id=second.pk)
    run.refresh_from_db()
    assert run.status == Status.FINISHED


def test_a_cap_on_another_provider_does_not_stop_the_run(dear_providers, fake_server):
    run = running_run()
    MonthlySpendingCap.objects.create(provider="anthropic", cap_usd=Decimal("1.00"))
    LlmCallRecord.objects.create(
        unit=run.units.first(),
        stage="response",
        prompt_hash="h",
        provider="anthropic",
        model="m",
        ok=True,
        cost_usd=Decimal("5"),
    )
    for unit in GenerationUnit.objects.filter(run=run):
        generation_unit_execute(unit_id=unit.pk)
    run.refresh_from_db()
    assert run.status == Status.FINISHED
