"""Whether a finished baseline report is still current (issue #34).

The App. J report is asked for by an admin (with its seed and resample counts) and
computed on a worker; each request is a ``BaselineReport`` row, kept as history. It is
not a ``core.reports`` stored report, but its page says fresh or stale the same way, with
the shared partial ``core/stored_report_status.html``: a report is stale when one of
its inputs changed after it was asked for: a participant finalized (their answers enter
the report), the best model was fixed again, or model predictions arrived (an uploaded
CSV, an evaluation run that finished). The old figures stay on the page meanwhile; the
admin asks for a new report to include the change.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max

from evaluation.models import EvaluationRun

from .models import BaselineReport, BestModelChoice, ImportedPrediction, Participation


@dataclass(frozen=True)
class _Row:
    """The fields the shared partial reads from a stored row."""

    status: str
    computed_at: datetime | None
    inputs: str
    error: str


@dataclass(frozen=True)
class BaselineReportState:
    """A finished report as the shared partial shows it (``ready``, ``stale``,
    ``computing``, ``row``); a new computation is the admin's request, never queued by
    the page."""

    row: _Row
    stale: bool
    ready: bool = True
    computing: bool = False


def last_input_change(study) -> datetime | None:
    """When the report's inputs last changed: four aggregate queries."""
    moments = [
        Participation.objects.filter(study=study).aggregate(at=Max("finalized_at"))["at"],
        BestModelChoice.objects.filter(study=study).aggregate(at=Max("chosen_at"))["at"],
        ImportedPrediction.objects.aggregate(at=Max("created_at"))["at"],
        EvaluationRun.objects.aggregate(at=Max("finished_at"))["at"],
    ]
    return max((m for m in moments if m is not None), default=None)


def report_state(report: BaselineReport) -> BaselineReportState:
    """The state of a finished (done) report."""
    results = report.results
    changed = last_input_change(report.study)
    inputs = (
        f"{results.get('n_items')} items × {results.get('n_annotators')} finalized "
        f"participants; seed {report.seed}, {report.n_boot:,} bootstrap resamples, "
        f"{report.n_permutations:,} source permutations"
    )
    return BaselineReportState(
        row=_Row(report.status, report.finished_at, inputs, report.error),
        stale=changed is not None and changed > report.created_at,
    )
