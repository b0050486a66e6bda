"""The screener's recall made measurable: a recall audit draws a seeded random sample of
the passed items in the final set (10%, at least 10) and sends it back to item review;
while a drawn item awaits its decision, the review pages, the queue CSV and the API show
no screener verdict for any item in review, so drawn and flagged items look the same;
the report counts the drawn items the reviewers decided and estimates recall with the
inverse of each record's chance of review, equal to scikit-learn's weighted recall and
to the estimator written out by hand."""

import csv as csv_module
import io
import math
import random

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

from adjudication.mcq import recall_audit, screener_agreement
from adjudication.mcq.models import McqItem, McqRecallAudit, McqReviewDecision, McqScreening
from adjudication.mcq.services.item_review import mcq_review_decide
from core.protocol import PROTOCOL_SEED
from core.reports.models import StoredReport
from core.roles import Role
from tests.stored_reports import computed

from .conftest import screened_item

pytestmark = pytest.mark.django_db
DRAW = reverse("mcq:recall-audit")
PASS = {"R1": "pass", "R2": "pass"}
FLAG = {"R1": "pass", "R2": "flag"}


def with_findings():
    """The screenings' outputs with the rest of the contract the review page reads: the
    option assessments and, for a flag, its finding."""
    for s in McqScreening.objects.all():
        flagged = s.outcome == "flagged"
        issue = {
            "rule_id": "R2",
            "option_ids": ["B"],
            "description": "Options B and C say the same thing.",
            "evidence_anchors": [],
            "missing_information": "",
            "impact": "Two keys.",
            "suggested_human_action": "Replace C.",
        }
        s.output = {**s.output, "issues": [issue] if flagged else [], "option_assessments": []}
        s.save(update_fields=["output"])


def passed_items(first, n, reviewer):
    """``n`` items the screener passed, in the final set as the workflow leaves them."""
    items = [
        screened_item(first + i, rules=PASS, reviewers_defect=None, reviewer=reviewer)
        for i in range(n)
    ]
    McqItem.objects.filter(pk__in=[i.pk for i in items]).update(status=McqItem.Status.FINAL)
    return items


def decide(item, reviewer, defect: bool):
    """A reviewer's decision through the review service (retain) or, for a defect, as
    the service records a removal (the test items have no options to remove)."""
    if not defect:
        return mcq_review_decide(
            item_id=item.pk, reviewer=reviewer, action="retain", version=1, note="fine"
        )
    version = item.versions.get(number=1)
    McqItem.objects.filter(pk=item.pk).update(status=McqItem.Status.REMOVED)
    return McqReviewDecision.objects.create(
        item=item, item_version=version, reviewer=reviewer, action="remove", note="defect"
    )


def test_a_draw_takes_ten_percent_at_least_ten_seeded_and_sends_them_to_review(person):
    admin, reviewer = person(Role.ADMIN), person(Role.ARBITRATOR)
    passed = passed_items(0, 130, reviewer)
    screened_item(500, rules=FLAG, reviewers_defect=None, reviewer=reviewer)  # not in the pool
    client = Client()
    client.force_login(admin)
    page = client.get(DRAW)
    assert page.status_code == 200
    assert b'data-testid="pool">130<' in page.content
    assert b'data-testid="sample">13 ' in page.content
    response = client.post(DRAW)
    assert response.status_code == 302
    audit = McqRecallAudit.objects.get()
    assert (audit.pool_size, audit.sample_size, audit.seed) == (130, 13, PROTOCOL_SEED)
    pool = sorted(McqScreening.objects.filter(item__in=passed).values_list("pk", flat=True))
    expected = sorted(random.Random(PROTOCOL_SEED).sample(pool, 13))
    drawn = sorted(McqScreening.objects.filter(recall_audit=audit).values_list("pk", flat=True))
    assert drawn == expected
    statuses = dict(McqItem.objects.filter(screenings__pk__in=pool).values_list("pk", "status"))
    assert sorted(pk for pk, s in statuses.items() if s == "flagged") == sorted(
        McqScreening.objects.filter(pk__in=drawn).values_list("item_id", flat=True)
    )
    # A second draw chooses among the passed items not drawn before, with its own seed;
    # fewer than ten left would all be drawn.
    second = recall_audit.draw_recall_audit(user=admin)
    assert (second.pool_size, second.sample_size, second.seed) == (117, 12, PROTOCOL_SEED + 1)
    assert recall_audit.sample_size(7, rate=0.1, min_items=10) == 7
    assert recall_audit.sample_size(250, rate=0.1, min_items=10) == 25


def test_the_draw_is_the_admins_and_says_when_there_is_nothing_to_draw(person):
    client = Client()
    client.force_login(person(Role.ARBITRATOR))
    assert client.get(DRAW).status_code == 403
    assert client.post(DRAW).status_code == 403
    client.force_login(person(Role.ADMIN))
    response = client.post(DRAW)
    assert response.status_code == 409
    assert b"nothing to draw" in response.content
    assert not McqRecallAudit.objects.exists()


def test_while_a_drawn_item_awaits_review_no_verdict_is_shown_for_any_item(person):
    reviewer = person(Role.ARBITRATOR)
    passed_items(0, 12, reviewer)
    flagged = screened_item(100, rules=FLAG, reviewers_defect=None, reviewer=reviewer)
    with_findings()
    client = Client()
    client.force_login(reviewer)
    before = client.get(reverse("mcq:item", args=[flagged.pk])).content.decode()
    assert 'data-testid="screening-outcome"' in before and "Why this item was flagged" in before
    assert "same thing" in before
    recall_audit.draw_recall_audit(user=None)
    drawn = McqItem.objects.filter(screenings__recall_audit__isnull=False).first()

    def seen(item):
        page = client.get(reverse("mcq:item", args=[item.pk])).content.decode()
        api = client.get(f"/api/items/{item.pk}/").json()
        return page, api

    for item in (drawn, flagged):
        page, api = seen(item)
        assert 'data-testid="blind-review"' in page
        for verdict in ('data-testid="screening-outcome"', "Passed on", "Flagged on", "same thing"):
            assert verdict not in page
        assert api["screening"] is None and api["checks"] == [] and api["issues"] == []
        assert api["assessments"] == {}
    queue = client.get("/api/items/queue/").json()["results"]
    assert {(r["screening_outcome"], tuple(r["concerns"])) for r in queue} == {(None, ())}
    assert len(queue) == 11  # ten drawn of the twelve passed, and the flagged one
    passed_filter = client.get("/api/items/queue/", {"screening_outcome": "passed"}).json()
    assert passed_filter["count"] == 0
    csv = client.get(reverse("mcq:queue-csv")).content.decode()
    rows = list(csv_module.DictReader(io.StringIO(csv)))
    assert len(rows) == 11 and {(r["screening_outcome"], r["concerns"]) for r in rows} == {("", "")}

    # Every drawn item decided: the verdicts show again.
    for item in McqItem.objects.filter(screenings__recall_audit__isnull=False):
        decide(item, reviewer, defect=False)
    assert not recall_audit.blind()
    after = client.get(reverse("mcq:item", args=[flagged.pk])).content.decode()
    assert 'data-testid="screening-outcome"' in after and 'data-testid="blind-review"' not in after


def test_the_report_estimates_recall_with_the_inverse_of_the_chance_of_review(person):
    reviewer = person(Role.ARBITRATOR)
    rng = random.Random(3)
    passed_items(0, 40, reviewer)
    flagged = [
        screened_item(200 + i, rules=FLAG, reviewers_defect=None, reviewer=reviewer)
        for i in range(8)
    ]
    audit = recall_audit.draw_recall_audit(user=None)
    assert (audit.pool_size, audit.sample_size) == (40, 10)
    drawn = list(McqItem.objects.filter(screenings__recall_audit=audit).order_by("pk"))
    # The reviewers find a defect in 3 drawn (passed) items and in 6 flagged ones; one
    # drawn item still waits.
    for i, item in enumerate(drawn[:9]):
        decide(item, reviewer, defect=i < 3)
    for i, item in enumerate(flagged):
        decide(item, reviewer, defect=i < 6)
    rng.shuffle(flagged)

    computed(screener_agreement.KIND)
    result = StoredReport.objects.get(kind=screener_agreement.KIND).result
    assert result["audit"] == {"draws": 1, "drawn": 10, "drawn_decided": 9, "drawn_waiting": 1}
    assert result["passed_reviewed"] == 9 and result["passed_outside_audit"] == 0

    # An independent computation from the records: every decided version with its
    # screener flag, the reviewers' flag, and its weight (1 for a flag; pool/sample of
    # the draw for a drawn passed item, counted here from the screenings).
    n_pool = McqScreening.objects.filter(outcome="passed").count()
    n_drawn = McqScreening.objects.filter(recall_audit__isnull=False).count()
    judge, expert, weight = [], [], []
    for d in McqReviewDecision.objects.all():
        s = McqScreening.objects.get(item_version=d.item_version)
        judge.append(int(s.outcome == "flagged"))
        expert.append(int(d.action != "retain"))
        weight.append(1.0 if s.outcome == "flagged" else n_pool / n_drawn)
    judge, expert, weight = np.array(judge), np.array(expert), np.array(weight)
    w = result["weighted"]
    assert (w["n"], w["n_passed"], w["enough"]) == (17, 9, True)
    assert w["recall"]["estimate"] == pytest.approx(
        recall_score(expert, judge, sample_weight=weight)
    )
    # By hand: 6 flagged defects found, 3 missed defects among 9 decided drawn items,
    # each drawn item standing for 40/10 = 4 passed items.
    assert w["recall"]["estimate"] == pytest.approx(6 / (6 + 3 * 4))
    assert w["fn"] == pytest.approx(12) and w["tn"] == pytest.approx(24)
    assert w["precision"]["estimate"] == pytest.approx(precision_score(expert, judge))
    assert w["kappa"]["estimate"] == pytest.approx(
        cohen_kappa_score(judge, expert, sample_weight=weight)
    )
    assert w["recall"]["ci_low"] <= w["recall"]["estimate"] <= w["recall"]["ci_high"]
    # The unweighted table counts the same 17 records as they are.
    overall = result["overall"]
    assert (overall["tp"], overall["fp"], overall["fn"], overall["tn"]) == (6, 2, 3, 6)
    assert overall["recall"]["estimate"] == pytest.approx(recall_score(expert, judge))
    assert not math.isclose(overall["recall"]["estimate"], w["recall"]["estimate"])

    client = Client()
    client.force_login(person(Role.ADMIN))
    page = client.get(reverse("mcq:screener-agreement")).content.decode()
    assert 'data-testid="weighted-recall">33.3%' in page
    assert "the reviewers decided 9 of them, 1 still awaits a decision" in page
