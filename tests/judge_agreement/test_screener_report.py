"""The item screener against the item reviewers: the stored report's figures equal
scikit-learn and a count from the records written in the test, per rule as well; the
page is the admin's, shows "being computed" until the report is stored, computes
nothing itself (same number of queries however many records) and says when a set has
too few records."""

import numpy as np
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

from adjudication.mcq import screener_agreement
from adjudication.mcq.screening import RULE_IDS
from core.reports.models import StoredReport
from core.roles import Role
from tests.stored_reports import computed, report_state

from .conftest import screened_item, screener_records

pytestmark = pytest.mark.django_db
URL = reverse("mcq:screener-agreement")


def stored_result():
    computed(screener_agreement.KIND)
    return StoredReport.objects.get(kind=screener_agreement.KIND).result


def check_figures(figures, judge, expert):
    judge, expert = np.asarray(judge, int), np.asarray(expert, int)
    assert figures["n"] == len(judge)
    assert figures["tp"] == int((judge & expert).sum())
    assert figures["fp"] == int((judge & (1 - expert)).sum())
    assert figures["fn"] == int(((1 - judge) & expert).sum())
    assert figures["tn"] == int(((1 - judge) & (1 - expert)).sum())
    assert figures["kappa"]["estimate"] == pytest.approx(cohen_kappa_score(judge, expert))
    assert figures["precision"]["estimate"] == pytest.approx(precision_score(expert, judge))
    assert figures["recall"]["estimate"] == pytest.approx(recall_score(expert, judge))
    kappa = figures["kappa"]
    assert kappa["ci_low"] <= kappa["estimate"] <= kappa["ci_high"]


def test_the_figures_equal_scikit_learn_on_the_records_overall_and_per_rule(person):
    written = screener_records(person(Role.ARBITRATOR))
    # Left out: a version screened but not decided, and a decided technical failure.
    reviewer = person(Role.ARBITRATOR)
    screened_item(100, rules={"R1": "flag"}, reviewers_defect=None, reviewer=reviewer)
    screened_item(
        101,
        rules={"R1": "pass"},
        reviewers_defect=True,
        reviewer=reviewer,
        outcome="technical_failure",
    )
    result = stored_result()
    assert result["n_pairs"] == len(written) == 36
    check_figures(result["overall"], [w[0] for w in written], [w[1] for w in written])
    assert result["left_out"]["no_screening_verdict"] == 1
    assert result["left_out"]["versions_decided"] == 37
    groups = {g["name"]: g for g in result["groups"]}
    assert list(groups) == list(RULE_IDS)
    for rule in RULE_IDS:
        judge = [w[2][rule] for w in written]
        check_figures(groups[rule], judge, [w[1] for w in written])


def test_the_page_is_the_admins_and_reads_the_stored_figures(person):
    screener_records(person(Role.ARBITRATOR), n=12)
    admin = person(Role.ADMIN)
    for role in (Role.ARBITRATOR, Role.MEMORY_REVIEWER, Role.PRIMARY_ANNOTATOR):
        client = Client()
        client.force_login(person(role))
        assert client.get(URL).status_code == 403, role
    client = Client()
    client.force_login(admin)
    html = client.get(URL).content.decode()
    assert report_state(html) == "pending" and "being computed now" in html
    assert 'data-testid="agreement-table"' not in html
    result = stored_result()
    html = client.get(URL).content.decode()
    assert report_state(html) == "fresh"
    assert 'data-testid="agreement-pairs"><strong>12</strong>' in html
    overall = html.split('data-testid="agreement-overall"', 1)[1].split("</tr>", 1)[0]
    assert f'data-testid="tp">{result["overall"]["tp"]}<' in overall
    # A new decision changes the inputs: the stored figures are shown, marked stale.
    screened_item(200, rules={"R1": "flag"}, reviewers_defect=True, reviewer=admin)
    html = client.get(URL).content.decode()
    assert report_state(html) == "stale" and "older than their inputs" in html


def test_too_few_records_say_how_many(person):
    screener_records(person(Role.ARBITRATOR), n=4)
    result = stored_result()
    assert result["overall"]["enough"] is False
    client = Client()
    client.force_login(person(Role.ADMIN))
    html = client.get(URL).content.decode()
    assert "Not enough records: 4 of the 10 needed." in html


def test_only_flags_reviewed_says_recall_and_kappa_need_passed_items(person):
    reviewer = person(Role.ARBITRATOR)
    for i in range(12):
        screened_item(i, rules={"R2": "flag"}, reviewers_defect=i % 3 != 0, reviewer=reviewer)
    result = stored_result()
    assert result["passed_reviewed"] == 0
    assert result["overall"]["precision"]["estimate"] == pytest.approx(8 / 12)
    client = Client()
    client.force_login(person(Role.ADMIN))
    html = client.get(URL).content.decode()
    assert 'data-testid="passed-not-reviewed"' in html


def test_a_get_computes_nothing_the_queries_do_not_grow_with_the_records(person):
    admin = person(Role.ADMIN)
    client = Client()
    client.force_login(admin)
    counts = []
    for n, start in ((3, 0), (30, 100)):
        for i in range(start, start + n):
            screened_item(i, rules={"R1": "flag"}, reviewers_defect=True, reviewer=admin)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(URL)
        assert response.status_code == 200
        assert report_state(response.content.decode()) == "pending"
        counts.append(len(queries))
        StoredReport.objects.all().delete()
    assert counts[0] == counts[1]
    assert not StoredReport.objects.filter(result__isnull=False).exists()
