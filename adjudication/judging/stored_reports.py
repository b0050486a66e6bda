"""A judge run's calibration report as a stored report (issue #34), computed once on a
worker and read by the report page, its CSV, Parquet and plot downloads and the API rows.

The kind ``adjudication.judging.calibration`` is keyed by the judge run's id. Its inputs
are what :func:`~adjudication.judging.report.report_inputs` reads: the run's seed, orders
and judge family, its verdicts (number, last recorded), the human judgments of its pairs
(number, last edit), the pairs' routing status, the current candidate-sourced references
(number, last id) and the bootstrap's resample count and level. A new verdict, judgment,
routing or reference changes the fingerprint.
"""

from __future__ import annotations

import hashlib

from django.db.models import Count, Max

from adjudication.arbitration.analytics import CANDIDATE_SOURCED
from adjudication.arbitration.models import ReferenceResponse
from adjudication.judging.models import JudgeCall, JudgeRun
from adjudication.judging.report import JudgeReport, judge_report
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from core import figure_json
from core.protocol import CI_LEVEL, N_BOOTSTRAP
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "adjudication.judging.calibration"
#: The modules whose dataclasses the stored figures may name.
TRUSTED_MODULES = ("agreement.",)


def key_for(run_id: int) -> str:
    return str(run_id)


def inputs(key: str) -> Inputs:
    run = JudgeRun.objects.filter(pk=int(key)).values(
        "pk", "seed", "orders_per_pair", "judge_family"
    )
    run = run.first() or {"pk": int(key)}
    pair_ids = JudgeCall.objects.filter(run_id=run["pk"]).values("pair_id")
    verdicts = JudgeCall.objects.filter(
        run_id=run["pk"], status=JudgeCall.Status.SUCCEEDED, verdict__isnull=False
    ).aggregate(n=Count("pk"), last=Max("verdict__pk"), at=Max("verdict__created_at"))
    judgments = ComparisonJudgment.objects.filter(assignment__pair__in=pair_ids).aggregate(
        n=Count("pk"), last=Max("updated_at")
    )
    routing = hashlib.sha256(
        repr(
            list(
                ComparisonPair.objects.filter(pk__in=pair_ids)
                .order_by("pk")
                .values_list("pk", "status")
            )
        ).encode()
    ).hexdigest()
    references = ReferenceResponse.objects.filter(
        superseded_at__isnull=True, decision_type__in=CANDIDATE_SOURCED
    ).aggregate(n=Count("pk"), last=Max("pk"))
    identity = {
        "run": run,
        "verdicts": verdicts,
        "judgments": judgments,
        "routing": routing,
        "references": references,
        "bootstrap": [N_BOOTSTRAP, CI_LEVEL],
    }
    described = (
        f"judge run {run['pk']}: {verdicts['n']} verdicts, {judgments['n']} human judgments, "
        f"seed {run.get('seed')}"
    )
    return Inputs(identity=identity, described=described)


def compute(key: str) -> dict:
    report = judge_report(run_id=int(key))
    if report is None:
        raise ValueError(f"No judge run {key}.")
    return {
        "n_pairs": report.n_pairs,
        "judge_family": report.judge_family,
        "figures": figure_json.to_json(report.figures),
        "notes": report.notes,
    }


def stored_report(run: JudgeRun) -> tuple[ReportView, JudgeReport | None]:
    """The stored report of ``run`` and its figures as a :class:`JudgeReport` (None
    before the first computation); queues a computation when the inputs changed."""
    view = report_for(KIND, key_for(run.pk))
    if not view.ready:
        return view, None
    result = view.result
    report = JudgeReport(
        run=run,
        n_pairs=result["n_pairs"],
        inputs=None,
        figures=figure_json.from_json(result["figures"], trusted_modules=TRUSTED_MODULES),
        notes=result["notes"],
        judge_family=result["judge_family"],
    )
    return view, report


register(KIND, inputs=inputs, compute=compute)
