"""The lab admin sets a monthly cap per provider in the Django admin (issue #36); the list
shows what the provider has cost this month from the recorded calls."""

from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.generation.models import LlmCallRecord
from core.llm_runs.models import MonthlySpendingCap
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_an_admin_sets_a_cap_and_sees_the_months_spend(admin_client, make_run_unit):
    response = admin_client.post(
        reverse("admin:core_monthlyspendingcap_add"),
        {"provider": "openai", "cap_usd": "250.00", "note": "grant 2026-12"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    cap = MonthlySpendingCap.objects.get()
    assert (cap.provider, cap.cap_usd) == ("openai", Decimal("250.00"))

    LlmCallRecord.objects.create(
        unit=make_run_unit,
        stage="response",
        provider="openai",
        model="m",
        prompt_hash="h",
        ok=True,
        cost_usd=Decimal("12.3456"),
    )
    body = admin_client.get(reverse("admin:core_monthlyspendingcap_changelist")).content.decode()
    assert "openai" in body and "$12.35" in body


@pytest.fixture
def make_run_unit(providers):
    from annotation.generation.services.runs import generation_run_create
    from tests.generation.helpers import frozen_character, scenario

    frozen_character(ages=[6])
    scenario()
    run = generation_run_create(user=UserFactory(), families=["gpt"])
    return run.units.get()
