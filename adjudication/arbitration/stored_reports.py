"""The arbitration analytics as a stored report (issue #34): the per-annotator Wilson
intervals and the agreement lift's bootstraps are computed once, on a worker, and the
page, its CSV, its tidy table, its plots and the API rows read the stored figures.

The kind ``adjudication.arbitration.analytics`` has one instance (key ""). Its inputs are
the decided pairs (by status: count and last id), the judgments on them (count, last id,
last change), the arbitration decisions (count, last id, reopened ones), the current
references (count, last id, superseded ones), the guidance ticked as followed, and the
bootstrap's resample count and seed: a new decision, a reopened pair, a revised judgment
or an adjudicated reference changes the fingerprint.
"""

from dataclasses import asdict

from django.db.models import Count, Max

from adjudication.arbitration import analytics
from adjudication.arbitration.models import ArbitrationDecision, ReferenceResponse
from agreement import BootstrapEstimate
from annotation.comparison.models import ComparisonJudgment, ComparisonPair
from core.protocol import N_BOOTSTRAP, PROTOCOL_SEED
from core.reports.services import Inputs, ReportView, register, report_for

KIND = "adjudication.arbitration.analytics"


def inputs(key: str) -> Inputs:
    pairs = {
        status: [n, last]
        for status, n, last in ComparisonPair.objects.filter(status__in=analytics.DECIDED)
        .values("status")
        .annotate(n=Count("pk"), last=Max("pk"))
        .values_list("status", "n", "last")
    }
    judgments = ComparisonJudgment.objects.filter(
        assignment__pair__status__in=analytics.DECIDED
    ).aggregate(n=Count("pk"), last=Max("pk"), changed=Max("updated_at"))
    decisions = ArbitrationDecision.objects.aggregate(
        n=Count("pk"), last=Max("pk"), reopened=Count("reopened_at"), when=Max("reopened_at")
    )
    references = ReferenceResponse.objects.aggregate(
        n=Count("pk"), last=Max("pk"), superseded=Count("superseded_at")
    )
    followed = ArbitrationDecision.guidance_followed.through.objects.aggregate(
        n=Count("pk"), last=Max("pk")
    )
    identity = {
        "pairs": pairs,
        "judgments": judgments,
        "decisions": decisions,
        "references": references,
        "guidance_followed": followed,
        "n_boot": N_BOOTSTRAP,
        "seed": PROTOCOL_SEED,
    }
    n_pairs = sum(n for n, _ in pairs.values())
    described = (
        f"{n_pairs} decided pair{'s' if n_pairs != 1 else ''}, {judgments['n']} judgments, "
        f"{decisions['n'] - decisions['reopened']} arbitration decisions; "
        f"{N_BOOTSTRAP:,} bootstrap resamples, seed {PROTOCOL_SEED}"
    )
    return Inputs(identity=identity, described=described)


def compute(key: str) -> dict:
    return asdict(analytics.arbitration_analytics())


def _estimate(data) -> BootstrapEstimate | None:
    return BootstrapEstimate(**data) if data is not None else None


def from_stored(data: dict) -> analytics.ArbitrationAnalytics:
    """The stored figures as the object the page, downloads and plots read."""
    annotators = [
        analytics.AnnotatorRecord(
            a["username"],
            *(analytics.Rate(**a[name]) for name in analytics.ArbitrationAnalytics.METRICS),
        )
        for a in data["annotators"]
    ]
    lift = data["lift"]
    if lift is not None:
        lift = analytics.AgreementLift(
            pairs=lift["pairs"],
            fleiss=_estimate(lift["fleiss"]),
            fleiss_note=lift["fleiss_note"],
            blind_agreement=_estimate(lift["blind_agreement"]),
            outcome_agreement=_estimate(lift["outcome_agreement"]),
            lift=_estimate(lift["lift"]),
        )
    return analytics.ArbitrationAnalytics(
        annotators=annotators, lift=lift, lift_note=data["lift_note"]
    )


#: What the downloads serve before the first computation: no rows.
NOT_COMPUTED = analytics.ArbitrationAnalytics(
    annotators=[], lift=None, lift_note="These figures have not been computed yet."
)


def stored_analytics() -> tuple[ReportView, analytics.ArbitrationAnalytics | None]:
    """The stored report (queued when stale) and its figures (None before the first
    computation). Never computes the statistics."""
    report = report_for(KIND)
    return report, from_stored(report.result) if report.ready else None


register(KIND, inputs=inputs, compute=compute)
