"""The demo shows the fact check at work (on by default): a second small audit run whose
one case reached the memory reviewer after each rewrite lost planted facts, the case
page naming them; the main demo run's repaired case passed its fact check."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from audit.memory_quality.demo import DEMO_NOTE, FACT_CHECK_NOTE, LOST_FACTS
from audit.memory_quality.models import AuditRun, FactCheck, MemoryCase
from llm.testing.fact_check import sentences

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(demo_built, db):
    """The demo, built once for this module (tests/conftest.py)."""


def test_the_demo_has_a_case_whose_rewrites_lost_facts_for_the_reviewer(demo):
    run = AuditRun.objects.get(note=FACT_CHECK_NOTE)
    assert run.status == "finished"
    case = run.cases.get(memory__content_full__contains=LOST_FACTS[0])
    assert case.status == MemoryCase.Status.REVIEW and case.escalated
    assert "lost facts" in case.repair_note
    checks = list(FactCheck.objects.filter(attempt__case=case).order_by("attempt__number"))
    assert [c.status for c in checks] == [FactCheck.Status.FAILED] * 3
    assert [c.facts_reused for c in checks] == [False, True, True]  # extracted once
    planted = [fact for fact in LOST_FACTS if fact in case.memory.content_full]
    assert len(planted) >= 3 and set(planted) <= set(checks[0].facts)
    for check in checks:  # the planted facts, and nothing else, went missing
        assert sorted(check.missing) == sorted(planted)
        assert check.missing_count / len(check.facts) == pytest.approx(check.omitted_rate)
        assert check.omitted_rate > check.thresholds["max_omitted_rate"]
    assert "Years later" not in checks[0].repaired["content_full"]

    client = Client()
    client.force_login(get_user_model().objects.get(username="memory"))
    page = client.get(reverse("audit:case-detail", args=[case.pk])).content.decode()
    assert page.count('data-testid="missing-facts"') == 3
    for fact in planted:
        assert escape(fact) in page


def test_the_main_demo_runs_repair_passed_its_fact_check(demo):
    """The context rewrite of the main demo run kept its narrative's facts (the facts of
    the rewritten context may go, within the limit)."""
    run = AuditRun.objects.get(note=DEMO_NOTE)
    [case] = run.cases.filter(status=MemoryCase.Status.REPAIRED)
    [check] = FactCheck.objects.filter(attempt__case=case)
    assert check.status == FactCheck.Status.PASSED
    assert check.omitted_rate <= check.thresholds["max_omitted_rate"]
    narrative = sentences(check.original["content_full"])
    assert not set(check.missing) & set(narrative)
