"""The arbitration analytics as a stored report (issue #34), computed by a real Celery
worker over Redis: the page never computes the figures; a new arbitration decision marks
the stored figures stale (still shown), and after the worker ran they are fresh, equal to
the hand counts and to the analytics computed directly."""

from dataclasses import asdict

import pytest
from django.urls import reverse

from adjudication.arbitration import analytics, services, stored_reports
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import compute_if_stale, report_for
from tests.conftest import _stop_celery_worker
from tests.stored_reports import report_state, wait_fresh

from .test_analytics import decided, judged  # noqa: F401 (fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def csv_of(client) -> str:
    return client.get(reverse("adjudication:analytics-csv")).content.decode()


def test_nothing_stored_the_page_says_pending_and_computes_nothing(client, decided):  # noqa: F811
    client.force_login(decided["arbitrator"])
    body = client.get(reverse("adjudication:analytics")).content.decode()
    assert report_state(body) == "pending"
    assert "have not been computed yet" in body
    assert 'data-testid="analytics-table"' not in body and "cmp-annotator" not in body
    assert 'hx-trigger="every 2s"' in body  # the page polls for the figures
    row = StoredReport.objects.get(kind=stored_reports.KIND)
    assert row.result is None and row.computed_at is None and row.status == ReportStatus.PENDING
    # The downloads read the same (empty) stored report: the header, no figures.
    assert csv_of(client).strip().splitlines() == [
        "annotator,statistic,hits,n,share,ci_low,ci_high,ci_method"
    ]


def test_a_new_decision_marks_the_analytics_stale_then_the_worker_refreshes_them(
    client,
    celery_worker_factory,
    decided,  # noqa: F811
):
    client.force_login(decided["arbitrator"])
    page = reverse("adjudication:analytics")
    assert report_state(client.get(page).content.decode()) == "pending"
    worker = celery_worker_factory()
    report = wait_fresh(stored_reports.KIND)
    assert report.result == asdict(analytics.arbitration_analytics())
    body = client.get(page).content.decode()
    assert report_state(body) == "fresh"
    assert "4 decided pairs" in body and "100.0% (3 of 3" in body  # annotator 2 agreed
    csv = csv_of(client)
    assert "cmp-annotator-1,agreement,2,3," in csv and "(all),agreement_lift,,3," in csv
    computed_at = report.row.computed_at

    # A new arbitration decision is an input: stale, and the old figures are still shown
    # (by the page and the CSV alike: no worker runs until both were read).
    _stop_celery_worker(worker)
    who = decided
    ok = ("as_is", "")
    pair = judged(who, "CHAR_A7", [("claude", *ok), ("gpt", *ok), ("gpt", *ok)])
    services.arbitration_resolve(
        pair_id=pair.pk,
        arbitrator=who["arbitrator"],
        kind="adopted",
        candidate_id=pair.candidates.get(family="gpt").pk,
    )
    body = client.get(page).content.decode()
    assert report_state(body) == "stale"
    assert "older than their inputs" in body and "100.0% (3 of 3" in body
    assert "cmp-annotator-1,agreement,2,3," in csv_of(client)

    celery_worker_factory()
    report = wait_fresh(stored_reports.KIND)
    assert report.row.computed_at > computed_at
    assert report.result == asdict(analytics.arbitration_analytics())
    body = client.get(page).content.decode()
    assert report_state(body) == "fresh" and "5 decided pairs" in body
    csv = csv_of(client)
    # Annotator 1 chose claude, the arbitrator adopted gpt: 2 of 4 agree, 3 of 4 overturned.
    assert "cmp-annotator-1,agreement,2,4,0.5," in csv
    assert "cmp-annotator-1,overturned,3,4,0.75," in csv
    assert "cmp-annotator-2,agreement,4,4,1.0," in csv
    assert "(all),agreement_lift,,4," in csv
    # Asking again while fresh queues nothing.
    assert report_for(stored_reports.KIND).row.status == ReportStatus.DONE


def test_the_demo_build_computes_the_analytics_only_when_they_are_not_current(
    decided,  # noqa: F811
):
    assert compute_if_stale(stored_reports.KIND) is True
    row = StoredReport.objects.get(kind=stored_reports.KIND)
    assert row.result == asdict(analytics.arbitration_analytics())
    # Current: a second build computes nothing and leaves the row as it was.
    assert compute_if_stale(stored_reports.KIND) is False
    assert StoredReport.objects.get(pk=row.pk).computed_at == row.computed_at
    # A new decision: the next build computes again.
    ok = ("as_is", "")
    pair = judged(decided, "CHAR_A8", [("claude", *ok), ("gpt", *ok), ("gpt", *ok)])
    services.arbitration_discard(pair_id=pair.pk, arbitrator=decided["arbitrator"], reason="No.")
    assert compute_if_stale(stored_reports.KIND) is True
    assert StoredReport.objects.get(pk=row.pk).computed_at > row.computed_at
