"""Reads of release hygiene: the reviewers' flag list, the screens, and the screening
summary the export's dataset card records. Each a fixed number of queries."""

from django.db.models import Count, Q

from audit.hygiene.models import HygieneFlag, HygieneRun
from audit.hygiene.rules import RULE_LABELS, Rule
from core.llm_runs.models import RunStatus

#: A screen whose flags count: every unit was screened, some may have failed.
COMPLETED = (RunStatus.FINISHED, RunStatus.FINISHED_WITH_FAILURES)


def latest_screen() -> HygieneRun | None:
    """The screen whose flags the reviewers work on: the latest one started."""
    return HygieneRun.objects.exclude(status=RunStatus.PENDING).order_by("-pk").first()


def latest_completed_screen() -> HygieneRun | None:
    return HygieneRun.objects.filter(status__in=COMPLETED).order_by("-finished_at", "-pk").first()


def flag_list(*, run: HygieneRun | None, status: str = "", rule: str = ""):
    if run is None:
        return HygieneFlag.objects.none()
    flags = HygieneFlag.objects.filter(run=run)
    if status:
        flags = flags.filter(status=status)
    if rule:
        flags = flags.filter(rule=rule)
    # Only what the list shows: no model family, no provenance of a reference.
    return flags.only(
        "pk",
        "text_kind",
        "text_label",
        "field",
        "rule",
        "matched",
        "detail",
        "before",
        "after",
        "status",
        "carried_from_id",
    ).order_by("pk")


def flag_status_counts(run: HygieneRun | None) -> dict:
    if run is None:
        return {}
    return dict(
        HygieneFlag.objects.filter(run=run)
        .values_list("status")
        .annotate(n=Count("pk"))
        .order_by("status")
    )


def screening_summary(run: HygieneRun | None) -> dict | None:
    """What a screen found, counted from its flags: texts screened, flags by rule and by
    kind (personal data, offensive), and how many are dismissed, confirmed (sent for
    repair) or open. Unresolved = open + confirmed: a confirmed span is resolved once a
    later screen no longer finds it."""
    if run is None:
        return None
    counts = HygieneFlag.objects.filter(run=run).aggregate(
        total=Count("pk"),
        open=Count("pk", filter=Q(status=HygieneFlag.Status.OPEN)),
        confirmed=Count("pk", filter=Q(status=HygieneFlag.Status.CONFIRMED)),
        dismissed=Count("pk", filter=Q(status=HygieneFlag.Status.DISMISSED)),
        offensive=Count("pk", filter=Q(rule=Rule.LEXICON)),
    )
    by_rule = dict(
        HygieneFlag.objects.filter(run=run)
        .values_list("rule")
        .annotate(n=Count("pk"))
        .order_by("rule")
    )
    return {
        "screen": run.pk,
        "status": run.status,
        "run_date": run.finished_at.date().isoformat() if run.finished_at else None,
        "texts_screened": run.text_done,
        "texts_total": run.text_total,
        "lexicon": run.lexicon_name,
        "lexicon_sha256": run.lexicon_sha256,
        "flags": counts["total"],
        "flags_by_kind": {
            "personal_data": counts["total"] - counts["offensive"],
            "offensive": counts["offensive"],
        },
        "flags_by_rule": {rule.value: by_rule.get(rule.value, 0) for rule in Rule},
        "open": counts["open"],
        "confirmed": counts["confirmed"],
        "dismissed": counts["dismissed"],
        "unresolved": counts["open"] + counts["confirmed"],
    }


def rule_rows(summary: dict) -> list[tuple[str, int]]:
    """(rule label, count) for a page's table."""
    return [(RULE_LABELS[Rule(rule)], n) for rule, n in summary["flags_by_rule"].items()]


def screen_list():
    return (
        HygieneRun.objects.select_related("created_by")
        .annotate(
            flag_count=Count("flags"),
            open_count=Count("flags", filter=Q(flags__status=HygieneFlag.Status.OPEN)),
        )
        .order_by("-created_at", "-pk")
    )
