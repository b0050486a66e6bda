"""Fact preservation in the repair loop (issue #37): a rewrite that clears its defect is
kept only once it keeps the original's facts. The repair model is the fake provider
server over real HTTP; its fact check answers from the memory text (facts are
sentences, checked by containment), so a rewrite that drops a planted sentence is
caught, sent back with the sentence named, and the next prompt names it."""

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from audit.memory_quality.models import (
    AuditCall,
    AuditUnit,
    FactCheck,
    MemoryCase,
    RepairDefect,
)
from audit.memory_quality.services.runs import audit_run_start
from core.roles import Role
from core.tasks import enqueue_on_commit
from llm.testing.fact_check import normal, sentences
from tests.memory_quality.conftest import CLEAN, CONTEXT, DRIFT, SUMMARY, hand_written

from .conftest import REPAIR_PRICES

pytestmark = pytest.mark.django_db

PLANTED = "I said nothing and pressed my forehead to the window."
DROPPED = CLEAN.replace(" " + PLANTED, "")
NEGATED = CLEAN.replace("That evening I told", "That evening I never told")
#: The original's facts as the fake extracts them: its sentences, less the flagged one.
ORIGINAL_FACTS = sentences(CONTEXT) + sentences(SUMMARY) + sentences(CLEAN)


def run_audit(admin, capture):
    with capture(execute=True):
        run = audit_run_start(created_by=admin)
        enqueue_on_commit("audit.run_memory_audit", run.pk, what=f"Audit run {run.pk}")
    run.refresh_from_db()
    return run


def case_page(user, case) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("audit:case-detail", args=[case.pk]))
    assert response.status_code == 200
    return response.content.decode()


def checks_of(case) -> list[FactCheck]:
    return list(FactCheck.objects.filter(attempt__case=case).order_by("attempt__number"))


def test_a_repair_that_drops_a_planted_fact_is_sent_back_naming_it(
    admin_user, person, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    rewrites = repair_model.script({"content_full": DROPPED}, {"content_full": CLEAN})
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    first, second = case.attempts.order_by("number")
    dropped, kept = checks_of(case)
    # The first rewrite cleared the drift but lost the planted sentence: not kept.
    assert first.audit_findings == [] and not first.passed
    assert dropped.status == FactCheck.Status.FAILED
    assert dropped.missing == [PLANTED]
    assert PLANTED in dropped.facts and not any("Years later" in f for f in dropped.facts)
    # It counted against the defect's attempts; the second attempt went to the same defect.
    assert (first.defect_id, first.defect_attempt) == (second.defect_id, 1)
    assert second.defect_attempt == 2
    # The next attempt's prompt names the lost fact; the first one's did not.
    assert len(rewrites.prompts) == 2
    assert "lost facts" not in rewrites.prompts[0]
    lost = rewrites.prompts[1].split("## Your previous rewrite lost facts", 1)
    assert len(lost) == 2 and f"- {PLANTED}" in lost[1]
    # The faithful rewrite kept every fact: kept as the memory's text.
    assert kept.status == FactCheck.Status.PASSED and second.passed
    assert kept.facts_reused and kept.facts == dropped.facts
    assert case.status == MemoryCase.Status.REPAIRED
    memory.refresh_from_db()
    assert memory.content_full == CLEAN
    # Calls: repair, extraction, check, repair, check (the facts reused).
    kinds = list(AuditCall.objects.filter(run=run).values_list("kind", flat=True))
    assert kinds == ["repair", "fact_extract", "fact_check", "repair", "fact_check"]
    assert len(repair_model.requests) == 5

    # The memory reviewer's case page names the missing fact under the failed attempt.
    page = case_page(person(Role.MEMORY_REVIEWER), case)
    failed = page.split('data-status="failed"', 1)[1].split('data-testid="fact-check"', 1)[0]
    missing = failed.split('data-testid="missing-facts"', 1)[1].split("</ul>", 1)[0]
    assert PLANTED in missing
    assert "1 missing (12.5 %; limit 10.0 %)" in failed
    assert 'data-status="passed"' in page and "8 of 8 facts of the original kept" in page
    defects = page.split('data-testid="repair-defects"', 1)[1].split("</ul>", 1)[0]
    assert "lost facts" in defects


def test_a_faithful_repair_passes_at_once(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    # One new sentence in place of the flagged one: within the invented limit of 2.
    rewrite = CLEAN + " I wondered where she was."
    repair_model.script({"content_full": rewrite})
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    (attempt,) = case.attempts.all()
    (check,) = checks_of(case)
    assert attempt.passed and case.status == MemoryCase.Status.REPAIRED
    assert check.status == FactCheck.Status.PASSED
    assert check.invented == ["I wondered where she was."] and check.missing_count == 0
    memory.refresh_from_db()
    assert memory.content_full == rewrite


def test_the_rates_equal_a_count_from_the_stored_verdicts_and_the_calls_are_priced(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    hand_written(content_full=DRIFT)
    too_inventive = CLEAN + " A dog barked. A bus stopped. A bell rang."
    repair_model.script(
        {"content_full": DROPPED},
        {"content_full": NEGATED},
        {"content_full": too_inventive},
    )
    run = run_audit(admin_user, django_capture_on_commit_callbacks)
    case = MemoryCase.objects.get(run=run)
    checks = checks_of(case)
    assert [c.status for c in checks] == [FactCheck.Status.FAILED] * 3

    for check in checks:
        verdicts = [v["verdict"] for v in check.verdicts]
        assert [v["fact"] for v in check.verdicts] == check.facts
        assert check.omitted_rate == verdicts.count("missing") / len(verdicts)
        assert check.missing_count == verdicts.count("missing")
        assert check.contradicted_count == verdicts.count("contradicted")
        assert check.invented_count == len(check.invented)
    # The facts are the original's sentences less the flagged one, counted here.
    assert [normal(f) for f in checks[0].facts] == [normal(f) for f in ORIGINAL_FACTS]
    dropped, negated, inventive = checks
    assert (dropped.missing_count, dropped.contradicted_count, dropped.invented_count) == (1, 0, 0)
    assert dropped.omitted_rate == 1 / len(ORIGINAL_FACTS)
    assert negated.contradicted == [s for s in ORIGINAL_FACTS if s.startswith("That evening")]
    assert (negated.missing_count, negated.invented_count) == (0, 0)
    assert inventive.invented == ["A dog barked.", "A bus stopped.", "A bell rang."]
    assert [len(c.reasons) for c in checks] == [1, 1, 1]

    # Every call is recorded at the repair model's prices; the unit's cost is their sum.
    price_in, price_out = (Decimal(p) for p in REPAIR_PRICES)
    calls = list(AuditCall.objects.filter(run=run))
    assert sorted({c.kind for c in calls}) == ["fact_check", "fact_extract", "repair"]
    for call in calls:
        assert call.ok and call.tokens_in > 0 and call.tokens_out > 0
        expected = (call.tokens_in * price_in + call.tokens_out * price_out) / 1_000_000
        assert call.cost_usd == expected.quantize(Decimal("0.000001"))
    for check in checks:
        assert check.check_call is not None
    assert [c.extract_call is not None for c in checks] == [True, False, False]
    unit = AuditUnit.objects.get(run=run)
    assert unit.cost_usd == sum(c.cost_usd for c in calls)
    assert unit.tokens_in == sum(c.tokens_in for c in calls)


def test_a_rewrite_that_keeps_losing_facts_goes_to_a_reviewer_with_the_facts_named(
    admin_user, person, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    rewrites = repair_model.script(*[{"content_full": DROPPED}] * 3)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REVIEW and case.escalated
    assert "fact check" in case.repair_note and PLANTED in case.repair_note
    (defect,) = case.defects.all()
    assert (defect.status, defect.attempts_used) == (RepairDefect.Status.EXHAUSTED, 3)
    assert not rewrites.rewrites and len(rewrites.prompts) == 3
    for prompt in rewrites.prompts[1:]:
        lost = prompt.split("## Your previous rewrite lost facts of the original memory", 1)
        assert len(lost) == 2 and f"- {PLANTED}" in lost[1]
    memory.refresh_from_db()
    assert memory.content_full == DRIFT  # no rewrite kept
    page = case_page(person(Role.MEMORY_REVIEWER), case)
    assert page.count('data-testid="missing-facts"') == 3


def test_the_limits_are_settings(
    settings, admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    settings.HEARTBENCH_AUDIT_FACT_CHECK_MAX_OMITTED_RATE = "0.2"
    memory = hand_written(content_full=DRIFT)
    repair_model.script({"content_full": DROPPED})
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    (check,) = checks_of(MemoryCase.objects.get(run=run))
    assert check.status == FactCheck.Status.PASSED and check.missing == [PLANTED]
    assert check.thresholds == {"max_omitted_rate": 0.2, "max_contradicted": 0, "max_invented": 2}
    memory.refresh_from_db()
    assert memory.content_full == DROPPED


@pytest.mark.parametrize("value", [None, ""])
def test_on_by_default_a_rewrite_that_drops_a_fact_is_not_kept(
    settings, value, admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    """Unset (or set empty), the check is part of the loop: the planted fact's loss is
    caught with no setting named."""
    del settings.HEARTBENCH_AUDIT_FACT_CHECK
    if value is not None:
        settings.HEARTBENCH_AUDIT_FACT_CHECK = value
    memory = hand_written(content_full=DRIFT)
    repair_model.script(*[{"content_full": DROPPED}] * 3)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REVIEW and "lost facts" in case.repair_note
    assert [c.missing for c in checks_of(case)] == [[PLANTED]] * 3
    memory.refresh_from_db()
    assert memory.content_full == DRIFT


@pytest.mark.parametrize("value", ["0", "off", False])
def test_turned_off_the_loop_is_as_before(
    settings, value, admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    settings.HEARTBENCH_AUDIT_FACT_CHECK = value
    hand_written(content_full=DRIFT)
    repair_model.script({"content_full": DROPPED})
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REPAIRED
    assert not FactCheck.objects.exists() and len(repair_model.requests) == 1
