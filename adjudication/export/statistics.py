"""Every statistics page's data as files (issue #23): each tidy table
(core.tidy_tables) as CSV and Parquet, with the columns of the pages' downloads
and of the API rows. The export job (a Celery task) calls :func:`statistics_files`.

The files are the admin's view (source families shown). Tables of one record (a label
audit, a baseline study) hold every record's rows, keyed by its id column. The same data
give the same bytes: every computation is seeded, rows come in a fixed order, and the
writers add no timestamps.
"""

from collections.abc import Callable

from adjudication.arbitration import statistics as arbitration
from adjudication.judging import statistics as judging
from adjudication.judging.models import JudgeRun
from adjudication.judging.report import judge_report
from annotation.blinding import statistics as blinding
from annotation.profile_review import statistics as profile_review
from annotation.scenario_review import selectors as scenario_selectors
from annotation.scenario_review import statistics as scenario_review
from audit.memory_quality import selectors as memory_selectors
from audit.memory_quality import statistics as memory_quality
from audit.memory_quality.models import AuditRun
from audit.reference_labels import statistics as reference_labels
from audit.reference_labels.models import LabelAudit
from audit.reference_labels.outcomes import label_audit_outcomes
from core.tidy_tables import TidyTable, csv_bytes, parquet_bytes
from evaluation import selectors as evaluation_selectors
from evaluation import statistics as evaluation
from humanbaseline import statistics as baseline
from humanbaseline.models import BaselineStudy

Progress = Callable[[int, int, str], None]


def _comparison():
    return [arbitration.comparison_outcomes_table(families=True)]


def _blinding():
    return [blinding.blinding_report_table()]


def _arbitration():
    return [arbitration.arbitration_analytics_table()]


def _profile_review():
    return [profile_review.profile_review_outcomes_table()]


def _scenario_coverage():
    coverage = scenario_selectors.scenario_coverage()
    return [build(coverage) for build in scenario_review.TABLES.values()]


def _memory_audits():
    outcomes = memory_quality.MEMORY_AUDIT_OUTCOMES.table([])
    criteria = memory_quality.MEMORY_AUDIT_CRITERIA.table([])
    for run in AuditRun.objects.order_by("pk"):
        result = memory_selectors.audit_outcomes(run=run)
        outcomes.extend(memory_quality.memory_audit_outcomes_table(run, result))
        criteria.extend(memory_quality.memory_audit_criteria_table(run, result))
    return [outcomes, criteria]


def _judge_runs():
    table = judging.JUDGE_REPORT.table([])
    for run_id in JudgeRun.objects.order_by("pk").values_list("pk", flat=True):
        report = judge_report(run_id=run_id)
        if report is not None:
            table.extend(judging.judge_report_table(report))
    return [table]


def _label_audits():
    outcomes = reference_labels.LABEL_AUDIT_OUTCOMES.table([])
    items = reference_labels.LABEL_AUDIT_ITEMS.table([])
    for audit in LabelAudit.objects.order_by("pk"):
        result = label_audit_outcomes(audit=audit)
        outcomes.extend(reference_labels.label_audit_outcomes_table(audit, result))
        items.extend(reference_labels.label_audit_items_table(audit, result))
    return [outcomes, items]


def _baseline():
    table = baseline.BASELINE_REPORT.table([])
    for study in BaselineStudy.objects.order_by("pk"):
        report = baseline.finished_report(study)
        if report is not None:
            table.extend(baseline.baseline_report_table(study, report))
    return [table]


def _evaluation():
    runs = evaluation_selectors.analysis_runs(None)
    table = evaluation_selectors.prediction_table(runs)
    return [evaluation.evaluation_analysis_table(table, evaluation.setting_names())]


#: (step name shown as progress, builder of its tables), in pipeline order.
STEPS: list[tuple[str, Callable[[], list[TidyTable]]]] = [
    ("profile review outcomes", _profile_review),
    ("memory audits", _memory_audits),
    ("scenario coverage", _scenario_coverage),
    ("comparison outcomes", _comparison),
    ("arbitration analytics", _arbitration),
    ("judge calibration reports", _judge_runs),
    ("blinding report", _blinding),
    ("reference-label audits", _label_audits),
    ("human baseline reports", _baseline),
    ("evaluation analysis", _evaluation),
]


def statistics_files(progress: Progress | None = None) -> dict[str, bytes]:
    """File name (``<table>.csv``, ``<table>.parquet``) → bytes, every statistics table.
    ``progress(done, total, step)`` is called before each step and once at the end."""
    files: dict[str, bytes] = {}
    total = len(STEPS)
    for done, (step, build) in enumerate(STEPS):
        if progress is not None:
            progress(done, total, step)
        for table in build():
            files[f"{table.name}.csv"] = csv_bytes(table)
            files[f"{table.name}.parquet"] = parquet_bytes(table)
    if progress is not None:
        progress(total, total, "done")
    return dict(sorted(files.items()))
