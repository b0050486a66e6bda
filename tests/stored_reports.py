"""Stored statistics reports (core.reports) computed in-process, as the worker would, for
the tests that read figures on a page or in a download: a request only reads what is
stored, so such a test computes the report first (the tests about the worker start a
real one)."""

import time

from core.reports.models import StoredReport
from core.reports.services import compute_report, report_for
from evaluation import stored_reports as evaluation_reports


def computed(kind: str, key: str = "") -> None:
    """Compute and store the report ``kind`` [``key``] now, from the current rows."""
    compute_report(kind, key)


def compute_analysis(*run_ids) -> None:
    """The stored evaluation analysis of these runs (the page's default choice without)."""
    compute_report(evaluation_reports.ANALYSIS_KIND, evaluation_reports.key_for(run_ids))


def compute_judge_report(run_id: int) -> None:
    """The stored calibration report of a judge run."""
    from adjudication.judging import stored_reports as judging_reports

    compute_report(judging_reports.KIND, judging_reports.key_for(run_id))


#: How long a test waits for a real worker to store fresh figures.
WAIT_SECONDS = 120


def report_state(html: str) -> str:
    """The status partial's state on a page: pending, stale or fresh."""
    after = html.split('data-testid="stored-report-status"', 1)[1]
    return after.split('data-state="', 1)[1].split('"', 1)[0]


def wait_fresh(kind: str, key: str = ""):
    """The report once a worker stored figures of the current inputs (a ReportView)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        report = report_for(kind, key)
        if report.ready and not report.stale:
            return report
        time.sleep(0.2)
    raise AssertionError(f"the worker did not store fresh figures: {report.row}")


def wait_fresh_page(client, url: str) -> str:
    """The page at ``url`` once it shows fresh figures."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        html = client.get(url).content.decode()
        if report_state(html) == "fresh":
            return html
        time.sleep(0.3)
    raise AssertionError(f"the worker did not store fresh figures: {StoredReport.objects.all()}")
