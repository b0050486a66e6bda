"""Stored statistics reports (core.reports) when things go wrong, against the real Redis
broker: a failed computation is not queued again by every view (only once its inputs
change, or the retry delay has passed), and a queued report whose message the broker
lost is sent again by the stranded-work sweep, and computed by a real worker."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

import core.reports.celery_tasks  # noqa: F401 (registers the reports with the sweep)
from adjudication.arbitration import stored_reports as arbitration_reports
from core.reports.models import ReportStatus, StoredReport
from core.reports.services import TASK_NAME, Inputs, compute_report, register, report_for
from core.tasks import broker_messages, resend_stranded

pytestmark = pytest.mark.django_db(transaction=True)

FAILING = "tests.failing_report"
SWEEP_TASK = "heartbench_site.resend_stranded"
#: The failing kind's inputs: a test changes them to make its figures stale.
FAILING_INPUTS = {"decisions": 1}


def _broken(key):
    raise ValueError("a broken input row")


register(
    FAILING,
    inputs=lambda key: Inputs(identity=dict(FAILING_INPUTS), described="test inputs"),
    compute=_broken,
)


@pytest.fixture
def broker():
    """The test process's own Redis database, empty before and after; messages go
    through the broker (no eager mode)."""
    from heartbench_site.celery import app

    def empty():
        with app.connection_for_write() as connection:
            connection.default_channel.client.flushdb()

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    empty()
    yield app
    empty()
    app.conf.task_always_eager = eager


def queued(app, name=FAILING, key=""):
    return (TASK_NAME, (name, key)) in broker_messages(app)


def fail_once(app):
    """Queue the failing report, let it fail (in-process), empty the broker."""
    report_for(FAILING)
    compute_report(FAILING)
    with app.connection_for_write() as connection:
        connection.default_channel.client.flushdb()
    row = StoredReport.objects.get(kind=FAILING)
    assert row.status == ReportStatus.FAILED and "a broken input row" in row.error
    return row


def test_a_failed_report_is_queued_again_only_when_its_inputs_change(broker, settings):
    settings.HEARTBENCH_REPORT_RETRY_SECONDS = 60
    FAILING_INPUTS["decisions"] = 1
    report = report_for(FAILING)
    assert report.row.status == ReportStatus.PENDING and queued(broker)
    fail_once(broker)
    # The same inputs, within the retry delay: every view shows the failure, none queues.
    for _ in range(3):
        report = report_for(FAILING)
        assert report.row.status == ReportStatus.FAILED and not report.computing
    assert not queued(broker)
    # New inputs: queued at once.
    FAILING_INPUTS["decisions"] = 2
    report = report_for(FAILING)
    assert report.row.status == ReportStatus.PENDING and queued(broker)
    assert StoredReport.objects.get(kind=FAILING).status == ReportStatus.PENDING


def test_a_failed_report_is_queued_again_after_the_retry_delay(broker, settings):
    settings.HEARTBENCH_REPORT_RETRY_SECONDS = 60
    FAILING_INPUTS["decisions"] = 1
    row = fail_once(broker)
    assert report_for(FAILING).row.status == ReportStatus.FAILED and not queued(broker)
    row.queued_at = timezone.now() - timedelta(seconds=61)
    row.save(update_fields=["queued_at"])
    assert report_for(FAILING).row.status == ReportStatus.PENDING and queued(broker)


def test_a_failure_without_a_queued_row_is_recorded(broker):
    """As in the demo build, which computes without asking first: the failure is stored
    (and shown), not lost."""
    compute_report(FAILING, "direct")
    row = StoredReport.objects.get(kind=FAILING, key="direct")
    assert row.status == ReportStatus.FAILED and "a broken input row" in row.error
    assert row.result is None


def _stranded(name, *, seconds_ago):
    """A report queued ``seconds_ago`` whose message never reached the broker."""
    return StoredReport.objects.create(
        kind=name,
        status=ReportStatus.PENDING,
        wanted_fingerprint="x",
        queued_at=timezone.now() - timedelta(seconds=seconds_ago),
    )


def test_the_sweep_sends_a_lost_report_again_once_it_is_past_the_grace_period(broker, settings):
    grace = settings.HEARTBENCH_STRANDED_GRACE_SECONDS
    _stranded(arbitration_reports.KIND, seconds_ago=grace + 5)
    StoredReport.objects.create(kind="evaluation.paired_comparisons", status=ReportStatus.DONE)
    assert resend_stranded(broker) == 1
    assert broker_messages(broker) == {(TASK_NAME, (arbitration_reports.KIND, ""))}
    # Its message is in the broker now: a second sweep sends nothing.
    assert resend_stranded(broker) == 0


def test_the_sweep_leaves_a_report_queued_moments_ago_and_looks_again(broker):
    _stranded(arbitration_reports.KIND, seconds_ago=0)
    assert resend_stranded(broker) == 0
    assert broker_messages(broker) == {(SWEEP_TASK, ())}


@pytest.mark.worker
def test_a_worker_that_connects_computes_a_report_whose_message_was_lost(
    broker, celery_worker_factory, settings
):
    """As after a Redis restart: the row says queued, the broker has no message. The
    worker's sweep on connecting sends it again, and the worker computes it."""
    _stranded(arbitration_reports.KIND, seconds_ago=settings.HEARTBENCH_STRANDED_GRACE_SECONDS + 5)
    celery_worker_factory()
    deadline = time.monotonic() + 120
    row = StoredReport.objects.get(kind=arbitration_reports.KIND)
    while row.status != ReportStatus.DONE and time.monotonic() < deadline:
        time.sleep(0.2)
        row.refresh_from_db()
    assert row.status == ReportStatus.DONE and row.result is not None
    assert row.result["annotators"] == [] and row.computed_at is not None
    assert report_for(arbitration_reports.KIND).stale is False
