"""The LLM defect classifier against the memory reviewers: the stored report's figures
equal scikit-learn and a count from the records written in the test, per criterion as
well; a verdict on another text of the memory than the reviewers read, a failed call and
a criterion without a verdict are left out and counted; the page is the admin's and
computes nothing itself."""

import numpy as np
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

from audit.memory_quality import classifier_agreement
from core.reports.models import StoredReport
from core.roles import Role
from tests.stored_reports import computed, report_state

from .conftest import audit_case, classifier_records

pytestmark = pytest.mark.django_db
URL = reverse("audit:classifier-agreement")


def stored_result():
    computed(classifier_agreement.KIND)
    return StoredReport.objects.get(kind=classifier_agreement.KIND).result


def counts(judge, expert):
    judge, expert = np.asarray(judge, int), np.asarray(expert, int)
    return {
        "tp": int((judge & expert).sum()),
        "fp": int((judge & (1 - expert)).sum()),
        "fn": int(((1 - judge) & expert).sum()),
        "tn": int(((1 - judge) & (1 - expert)).sum()),
    }


def test_the_figures_equal_scikit_learn_on_the_records_overall_and_per_criterion(person, audit_run):
    reviewer = person(Role.MEMORY_REVIEWER)
    written = classifier_records(audit_run, reviewer)
    result = stored_result()
    judge, expert = [w[1] for w in written], [w[2] for w in written]
    overall = result["overall"]
    assert result["n_pairs"] == overall["n"] == len(written)
    assert {k: overall[k] for k in ("tp", "fp", "fn", "tn")} == counts(judge, expert)
    assert overall["kappa"]["estimate"] == pytest.approx(cohen_kappa_score(judge, expert))
    assert overall["precision"]["estimate"] == pytest.approx(precision_score(expert, judge))
    assert overall["recall"]["estimate"] == pytest.approx(recall_score(expert, judge))
    by_name = {g["name"].split(".")[0]: g for g in result["groups"]}
    assert sorted(by_name) == ["1", "2", "3", "4", "5", "6"]
    for criterion, figures in by_name.items():
        mine = [w for w in written if w[0] == int(criterion)]
        assert figures["n"] == len(mine)
        assert {k: figures[k] for k in ("tp", "fp", "fn", "tn")} == counts(
            [w[1] for w in mine], [w[2] for w in mine]
        )
        if figures["enough"]:
            assert figures["kappa"]["estimate"] == pytest.approx(
                cohen_kappa_score([w[1] for w in mine], [w[2] for w in mine])
            )
        else:
            assert figures["n"] < classifier_agreement.MIN_PAIRS
    assert by_name["4"]["n"] == 0 and not by_name["4"]["enough"]


def test_verdicts_on_another_text_failed_calls_and_missing_verdicts_are_left_out(person, audit_run):
    reviewer = person(Role.MEMORY_REVIEWER)
    base = timezone.now() - timezone.timedelta(days=1)
    # Repaired between the verdict and the decision: the reviewers read another text.
    audit_case(
        audit_run,
        1,
        criteria=[1],
        verdicts={1: "confirms"},
        decision="confirmed",
        reviewer=reviewer,
        base=base,
        repaired_after=5,
    )
    # A failed call, and a flagged criterion the classifier never judged.
    audit_case(
        audit_run,
        2,
        criteria=[1, 2],
        verdicts={1: "failed"},
        decision="false_positive",
        reviewer=reviewer,
        base=base,
    )
    # Counted: same text, one confirmed and one rejected.
    audit_case(
        audit_run,
        3,
        criteria=[6],
        verdicts={6: "adds"},
        decision="confirmed",
        reviewer=reviewer,
        base=base,
    )
    audit_case(
        audit_run,
        4,
        criteria=[3],
        verdicts={3: "rejects"},
        decision="confirmed",
        reviewer=reviewer,
        base=base,
    )
    # A verdict on a criterion the reviewers were not shown: no expert decision on it.
    audit_case(
        audit_run,
        5,
        criteria=[5],
        verdicts={5: "rejects", 2: "rejects"},
        decision="false_positive",
        reviewer=reviewer,
        base=base,
    )
    result = stored_result()
    assert result["left_out"] == {
        "no_verdict": 1,
        "failed_verdict": 1,
        "other_text": 1,
        "cases_decided": 5,
    }
    overall = result["overall"]
    assert (overall["n"], overall["tp"], overall["fp"], overall["fn"], overall["tn"]) == (
        3,
        1,
        0,
        1,
        1,
    )
    assert overall["enough"] is False


def test_the_page_is_the_admins_and_a_get_computes_nothing(person, audit_run):
    reviewer = person(Role.MEMORY_REVIEWER)
    for role in (Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.AUDIT_EXPERT):
        client = Client()
        client.force_login(person(role))
        assert client.get(URL).status_code == 403, role
    client = Client()
    client.force_login(person(Role.ADMIN))
    counts_ = []
    for first, n in ((0, 2), (100, 20)):
        StoredReport.objects.all().delete()
        for i in range(first, first + n):
            audit_case(
                audit_run,
                i,
                criteria=[1],
                verdicts={1: "confirms"},
                decision="confirmed",
                reviewer=reviewer,
                base=timezone.now() - timezone.timedelta(hours=3),
            )
        with CaptureQueriesContext(connection) as queries:
            html = client.get(URL).content.decode()
        assert report_state(html) == "pending" and "being computed now" in html
        counts_.append(len(queries))
    assert counts_[0] == counts_[1]
    assert not StoredReport.objects.filter(result__isnull=False).exists()
    result = stored_result()
    html = client.get(URL).content.decode()
    assert report_state(html) == "fresh"
    assert f'data-testid="agreement-pairs"><strong>{result["n_pairs"]}</strong>' in html
