"""`make demo` shows both judge-versus-experts reports computed: the classifier's with
figures from its duplication run's records (recounted here from the rows), the
screener's from its re-screened release items and recall audit (recounted likewise);
the lab's current audit settings are the demo's own again."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score, recall_score

from adjudication.mcq import recall_audit, screener_agreement
from adjudication.mcq.models import McqRecallAudit, McqReviewDecision, McqScreening
from adjudication.mcq.screener_agreement_demo import demo_screener_agreement
from audit.memory_quality import classifier_agreement
from audit.memory_quality.classifier_agreement_demo import (
    DEMO_NOTE,
    DEMO_THRESHOLD,
    SETTINGS_NOTE,
    demo_classifier_agreement,
)
from audit.memory_quality.demo import DEMO_SETTINGS_NOTE
from audit.memory_quality.models import AuditRun, ClassifierResult, MemoryCase
from audit.memory_quality.services.configuration import audit_settings_current
from core.reports.models import StoredReport
from tests.stored_reports import report_state

pytestmark = pytest.mark.django_db


def test_the_demo_classifier_report_has_figures_recounted_from_its_rows(demo_built):
    run = AuditRun.objects.get(note=DEMO_NOTE)
    assert run.settings_version.note == SETTINGS_NOTE
    current = audit_settings_current()
    assert current.note == DEMO_SETTINGS_NOTE and sorted(current.enabled_criteria) == [
        1,
        2,
        3,
        5,
        6,
    ]
    assert current.duplicate_threshold != DEMO_THRESHOLD == run.settings_version.duplicate_threshold
    cases = MemoryCase.objects.filter(run=run)
    assert not cases.filter(status=MemoryCase.Status.REVIEW).exists()
    verdicts = dict(
        ClassifierResult.objects.filter(run=run, criterion=4).values_list("memory_id", "verdict")
    )
    judge, expert = [], []
    for memory_id, decision in cases.values_list("memory_id", "decision"):
        judge.append(verdicts[memory_id] in ("confirms", "adds"))
        expert.append(decision == "confirmed")
    stored = StoredReport.objects.get(kind=classifier_agreement.KIND)
    result = stored.result
    assert result["n_pairs"] == len(judge) >= classifier_agreement.MIN_PAIRS
    overall = result["overall"]
    assert overall["enough"] and overall["tp"] == sum(
        j and e for j, e in zip(judge, expert, strict=True)
    )
    assert overall["kappa"]["estimate"] == pytest.approx(cohen_kappa_score(judge, expert))
    assert 0 < overall["recall"]["estimate"] < 1 and 0 < overall["precision"]["estimate"] < 1
    assert 0 < overall["kappa"]["estimate"] < 1
    assert demo_classifier_agreement(users={}) == run  # a second call changes nothing

    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    html = client.get(reverse("audit:classifier-agreement")).content.decode()
    assert report_state(html) == "fresh"
    assert f'data-testid="agreement-pairs"><strong>{len(judge)}</strong>' in html
    html = client.get(reverse("mcq:screener-agreement")).content.decode()
    assert report_state(html) == "fresh"
    screener = StoredReport.objects.get(kind=screener_agreement.KIND).result
    # The screener's records, recounted from the demo's rows: every decided version with
    # its verdict, the reviewers' finding, and its weight (pool/drawn for a drawn item).
    audit = McqRecallAudit.objects.get()
    judge, expert, weight = [], [], []
    for decision in McqReviewDecision.objects.all():
        screening = McqScreening.objects.get(
            item_version=decision.item_version, outcome__in=["passed", "flagged"]
        )
        judge.append(screening.outcome == "flagged")
        expert.append(decision.action != "retain")
        drawn = screening.recall_audit_id == audit.pk
        weight.append(audit.pool_size / audit.sample_size if drawn else 1.0)
    assert screener["n_pairs"] == len(judge) == 19 and screener["overall"]["enough"]
    assert screener["passed_reviewed"] == audit.sample_size == 10
    overall = screener["overall"]
    assert 0 < overall["recall"]["estimate"] < 1 and 0 < overall["precision"]["estimate"] < 1
    assert overall["kappa"]["estimate"] == pytest.approx(cohen_kappa_score(judge, expert))
    assert screener["weighted"]["recall"]["estimate"] == pytest.approx(
        recall_score(expert, judge, sample_weight=weight)
    )
    assert "Not enough records" not in html.split('data-testid="agreement-overall"')[1][:2000]
    assert not recall_audit.blind()  # every drawn item is decided: the verdicts show
    assert demo_screener_agreement(users={}) == 0  # a second call changes nothing
