"""The calibration report page reads its figures from a stored report computed by a real
Celery worker over Redis (issue #34): before the worker ran the page shows none and the
downloads and the API rows answer 409; a newly recorded judge verdict marks the stored
figures stale (the old ones still shown) until the worker stored the new ones, which
equal the independent computations of test_report_page.py."""

# ruff: noqa: F811 (the test takes the ``run`` fixture imported from test_report.py)

import pytest
from django.test import Client
from django.urls import reverse

from adjudication.judging import stored_reports
from adjudication.judging.models import JudgeVerdict
from core.reports.models import ReportStatus, StoredReport
from tests.judging.test_report import run  # noqa: F401 (fixture)
from tests.judging.test_report_page import csv_rows, independent_figures, value
from tests.stored_reports import report_state, wait_fresh_page

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def pairs_shown(html) -> str:
    return html.split('data-testid="report-pairs"><strong>', 1)[1].split("<", 1)[0]


def test_a_new_verdict_marks_the_report_stale_then_the_worker_refreshes_it(
    run, celery_worker_factory
):
    # The last pair's second verdict is not recorded yet: that pair is not in the report.
    late = JudgeVerdict.objects.filter(call__run=run).order_by("call__pair_id", "call__order_index")
    late = late.last()
    late.delete()
    client = Client()
    client.force_login(run.pairs.first().assignments.first().assigned_by)
    url = reverse("judging:report", kwargs={"run_id": run.pk})
    csv_url = reverse("judging:report-csv", kwargs={"run_id": run.pk})

    # Nothing stored: the page computes nothing, shows no figures, the CSV answers 409.
    html = client.get(url).content.decode()
    assert report_state(html) == "pending" and 'data-testid="report-selection"' not in html
    for download in (
        csv_url,
        reverse("judging:report-table", args=[run.pk]) + "?format=parquet",
        reverse("judging:report-plot", kwargs={"run_id": run.pk, "plot": "kappa", "fmt": "svg"}),
        reverse("judging-api:report-rows", args=[run.pk]),
    ):
        response = client.get(download)
        assert response.status_code == 409, download
        assert "being computed" in response.content.decode(), download
    row = StoredReport.objects.get(kind=stored_reports.KIND, key=str(run.pk))
    assert row.result is None

    celery_worker_factory()
    html = wait_fresh_page(client, url)
    assert pairs_shown(html) == "3" and 'data-testid="report-selection"' in html
    computed_at = StoredReport.objects.get(pk=row.pk).computed_at

    # The verdict is recorded: an input changed, the old figures stay shown, marked stale.
    late.pk = None
    late._state.adding = True
    late.save()
    html = client.get(url).content.decode()
    assert report_state(html) == "stale" and "older than their inputs" in html
    assert pairs_shown(html) == "3"

    html = wait_fresh_page(client, url)
    assert pairs_shown(html) == "4"
    stored = StoredReport.objects.get(pk=row.pk)
    assert stored.status == ReportStatus.DONE and stored.computed_at > computed_at
    rows = csv_rows(client.get(csv_url))
    for figure, expected in independent_figures().items():
        assert value(rows[figure]) == pytest.approx(expected), figure
