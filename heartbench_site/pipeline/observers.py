"""The observer reports' row (issue 37): does a blind reader recover the designed
personality? Counts characters covered by a finished observer run and the anchor traits
the stored reports flag; it reads stored figures and never computes them."""

from django.db.models import Count, Q
from django.urls import reverse

from audit.observers.corpus_version import corpus_status
from audit.observers.models import ObserverRun, ObserverUnit
from audit.observers.stored_reports import KIND
from core.reports.models import StoredReport

from .rows import Blocker, Stage, Tally, plural

OVER = (ObserverRun.Status.FINISHED, ObserverRun.Status.FINISHED_WITH_FAILURES)


def observers_stage() -> Stage:
    covered = (
        ObserverUnit.objects.filter(run__status__in=OVER, status=ObserverUnit.Status.SUCCEEDED)
        .values("character_id")
        .distinct()
        .count()
    )
    latest = ObserverRun.objects.filter(status__in=OVER).order_by("-finished_at", "-pk").first()
    runs = ObserverRun.objects.aggregate(
        total=Count("pk"), going=Count("pk", filter=Q(status__in=("pending", "running")))
    )
    stage = Stage(
        "observers",
        "Observer reports",
        "",
        [
            Tally("characters with an observer report", covered, emphasis=True),
            Tally("observer runs", runs["total"]),
        ],
        links=[("Observer runs", reverse("audit:observers:runs"))],
    )
    if latest is not None:
        url = reverse("audit:observers:report", kwargs={"observer_run_id": latest.pk})
        corpus = corpus_status(latest)
        version = f", corpus version {corpus.shown}" if corpus.recorded else ""
        stage.links.append((f"Latest report (run {latest.pk}{version})", url))
        if corpus.out_of_date:
            stage.blockers.append(
                Blocker(
                    f"The latest observer report (run {latest.pk}, corpus version "
                    f"{corpus.shown}) is out of date: {'; '.join(corpus.changes)} (admin).",
                    url,
                )
            )
        stored = StoredReport.objects.filter(kind=KIND, key=str(latest.pk)).first()
        flagged = (stored.result or {}).get("flagged", 0) if stored else 0
        if flagged:
            stage.blockers.append(
                Blocker(
                    f"{plural(flagged, 'anchor trait')} not recovered by the observers in "
                    f"run {latest.pk} (admin).",
                    url,
                )
            )
    return stage
