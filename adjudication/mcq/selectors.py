"""Reads of MCQ assembly, screening and item review. Every page's reads are a fixed number
of queries, whatever the number of items (select_related / prefetch_related)."""

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq import recall_audit
from adjudication.mcq.models import (
    OPTION_LABELS,
    McqAssemblyRun,
    McqItem,
    McqItemVersion,
    McqOption,
    McqReviewDecision,
    McqScreening,
    McqScreeningRun,
)
from adjudication.mcq.screening import REVIEW_RULES
from core.plurals import counted
from core.roles import Role, user_roles

# Who reviews flagged and incomplete items. App. D.3.1 says "the human reviewer" without
# naming the team; D.4's audit team is "not involved in construction", so the review is
# a construction role: the arbitrators (the senior experts of Stage 2), and admins.
ITEM_REVIEWER_ROLES = (Role.ARBITRATOR, Role.ADMIN)
REVIEW_QUEUE_STATUSES = (McqItem.Status.FLAGGED, McqItem.Status.NEEDS_COMPLETION)

RULE_LABELS = {rule.rule_id: rule.title for rule in REVIEW_RULES}


def _latest_screenings() -> Prefetch:
    return Prefetch(
        "screenings",
        queryset=McqScreening.objects.order_by("-created_at"),
        to_attr="screenings_newest_first",
    )


@dataclass
class QueueRow:
    item: McqItem
    screening: McqScreening | None

    @property
    def concerns(self) -> list[str]:
        """Rule ids flagged or uncertain in the latest screening."""
        if self.screening is None or not self.screening.output:
            return []
        return [c["rule_id"] for c in self.screening.output["checks"] if c["status"] != "pass"]

    @property
    def concern_titles(self) -> list[str]:
        """The concerns as a reviewer reads them: ``R2 Substantive distinctness``."""
        return [f"{r} {RULE_LABELS.get(r, '')}".strip() for r in self.concerns]


def item_review_queue(*, status: str | None = None) -> list[QueueRow]:
    statuses = [status] if status in REVIEW_QUEUE_STATUSES else list(REVIEW_QUEUE_STATUSES)
    items = (
        McqItem.objects.filter(status__in=statuses)
        .select_related("character", "scenario")
        .prefetch_related(_latest_screenings())
        .annotate(option_count=Count("options"))
        .order_by("status", "question_id")
    )
    # While a recall audit is open, no verdict of an item in review is shown (a drawn,
    # passed item must look like a flagged one).
    blind_now = recall_audit.blind()
    rows = []
    for item in items:
        latest = item.screenings_newest_first[0] if item.screenings_newest_first else None
        hidden = recall_audit.hides(item, latest, blind_now=blind_now)
        rows.append(QueueRow(item, None if hidden else latest))
    return rows


def item_status_counts() -> dict[str, int]:
    rows = McqItem.objects.values_list("status").annotate(n=Count("pk"))
    counts = {s.value: 0 for s in McqItem.Status}
    counts.update(dict(rows))
    return counts


def key_distribution(items) -> dict[str, int]:
    """Answer keys per option label, every label present (``{"A": n, ..., "D": n}``), of
    a queryset of items (one query) or of an iterable of items or item dicts (none). The
    export manifest and the items page show it (seed 000 §2.4 Stage 3: positions are
    balanced)."""
    counts = dict.fromkeys(OPTION_LABELS, 0)
    if isinstance(items, QuerySet):
        pairs = items.order_by().values_list("correct_answer").annotate(n=Count("pk"))
    else:
        keys = (i["correct_answer"] if isinstance(i, dict) else i.correct_answer for i in items)
        pairs = ((key, 1) for key in keys)
    for label, n in pairs:
        counts[label] = counts.get(label, 0) + n
    return counts


# The items whose keys are placed (not awaiting completion, not removed).
KEYED_STATUSES = (McqItem.Status.SCREENING, McqItem.Status.FLAGGED, McqItem.Status.FINAL)


def key_distributions() -> dict[str, dict[str, int]]:
    """The items page's key distributions in one query: ``final`` (the final set) and
    ``in_construction`` (awaiting screening or flagged)."""
    out = {
        "final": dict.fromkeys(OPTION_LABELS, 0),
        "in_construction": dict.fromkeys(OPTION_LABELS, 0),
    }
    rows = (
        McqItem.objects.filter(status__in=KEYED_STATUSES)
        .order_by()
        .values_list("status", "correct_answer")
        .annotate(n=Count("pk"))
    )
    for status, label, n in rows:
        row = out["final" if status == McqItem.Status.FINAL else "in_construction"]
        row[label] = row.get(label, 0) + n
    return out


def run_key_distribution(*, run_id: int) -> dict[str, int]:
    """The keys of one assembly run's placed items (one query)."""
    return key_distribution(
        McqItem.objects.filter(assembly_params__run=run_id, status__in=KEYED_STATUSES)
    )


@dataclass
class ItemReviewPage:
    item: McqItem
    options: list[McqOption]
    screening: McqScreening | None
    screenings: list[McqScreening]
    versions: list[McqItemVersion]
    decisions: list[McqReviewDecision]
    replacement_references: list[ReferenceResponse]
    # The screener's verdicts are hidden (a recall audit is open, the item is in review).
    blind: bool = False

    @property
    def assessments(self) -> dict[str, dict]:
        if self.screening is None or not self.screening.output:
            return {}
        return {a["option_id"]: a for a in self.screening.output["option_assessments"]}

    @property
    def option_rows(self) -> list[tuple[McqOption, dict | None]]:
        found = self.assessments
        return [(o, found.get(o.label)) for o in self.options]

    @property
    def checks(self) -> list[dict]:
        if self.screening is None or not self.screening.output:
            return []
        return [
            {**c, "label": RULE_LABELS.get(c["rule_id"], "")}
            for c in sorted(self.screening.output["checks"], key=lambda c: c["rule_id"])
        ]

    @property
    def issues(self) -> list[dict]:
        if self.screening is None or not self.screening.output:
            return []
        return self.screening.output["issues"]

    @property
    def candidates(self) -> list[dict]:
        return self.item.assembly_params.get("candidates", [])

    @property
    def distractor_labels(self) -> list[str]:
        return [o.label for o in self.options if not o.is_correct]

    @property
    def incomplete(self) -> bool:
        return self.item.status == McqItem.Status.NEEDS_COMPLETION


def item_review_page(*, item_id: int) -> ItemReviewPage | None:
    item = (
        McqItem.objects.select_related("character", "scenario", "reference")
        .filter(pk=item_id)
        .first()
    )
    if item is None:
        return None
    screenings = list(item.screenings.order_by("-created_at"))
    blind = bool(screenings) and recall_audit.hides(
        item, screenings[0], blind_now=recall_audit.blind()
    )
    if blind:  # no verdict of this item is shown while it is in a blind review
        screenings = [s for s in screenings if s.outcome not in recall_audit.VERDICTS]
    used = set(item.options.values_list("source_reference_id", flat=True))
    replacements = list(
        ReferenceResponse.objects.filter(scenario_id=item.scenario_id, superseded_at__isnull=True)
        .exclude(character_id=item.character_id)
        .exclude(pk__in=[u for u in used if u])
        .select_related("character")
        .order_by("character__key")
    )
    return ItemReviewPage(
        item=item,
        options=list(item.options.order_by("label")),
        screening=None if blind else (screenings[0] if screenings else None),
        screenings=screenings,
        blind=blind,
        versions=list(item.versions.select_related("created_by").order_by("-number")),
        decisions=list(item.review_decisions.select_related("reviewer").order_by("-decided_at")),
        replacement_references=replacements,
    )


def assembly_runs(limit: int = 20) -> list[McqAssemblyRun]:
    return list(McqAssemblyRun.objects.select_related("started_by")[:limit])


def assembly_run_get(*, run_id: int) -> McqAssemblyRun | None:
    return McqAssemblyRun.objects.filter(pk=run_id).first()


# --- Screening runs (admins only: they carry tokens and cost) ----------------------------


def screening_runs(limit: int = 30) -> list[McqScreeningRun]:
    """The latest screening runs with their unit counts: one query."""
    Unit = McqScreening.Status
    return list(
        McqScreeningRun.objects.select_related("created_by", "assembly_run")
        .annotate(
            units=Count("screenings"),
            units_done=Count("screenings", filter=Q(screenings__status=Unit.DONE)),
            units_failed=Count("screenings", filter=Q(screenings__status=Unit.FAILED)),
        )
        .order_by("-created_at", "-pk")[:limit]
    )


@dataclass
class ScreeningRunPage:
    run: McqScreeningRun
    units: list[McqScreening]
    counts: dict
    tokens_in: int
    tokens_out: int
    cost_usd: object
    calls: int
    failed_calls: int

    @property
    def polling(self) -> bool:
        return self.run.in_progress

    @property
    def percent(self) -> int:
        total = len(self.units)
        final = sum(1 for u in self.units if u.is_terminal)
        return round(100 * final / total) if total else 100


def screening_run_page(*, run_id: int) -> ScreeningRunPage | None:
    """A screening run, its units (item, version, state, outcome, tokens, cost) and its
    call counts: four queries."""
    run = (
        McqScreeningRun.objects.select_related("created_by", "assembly_run")
        .filter(pk=run_id)
        .first()
    )
    if run is None:
        return None
    units = list(
        run.screenings.select_related("item", "item_version")
        .annotate(
            call_count=Count("calls"), failed_call_count=Count("calls", filter=Q(calls__ok=False))
        )
        .order_by("pk")
    )
    counts = {status: 0 for status in McqScreening.Status.values}
    for unit in units:
        counts[unit.status] += 1
    return ScreeningRunPage(
        run=run,
        units=units,
        counts=counts,
        tokens_in=sum(u.tokens_in for u in units),
        tokens_out=sum(u.tokens_out for u in units),
        cost_usd=sum((u.cost_usd for u in units), 0),
        calls=sum(u.call_count for u in units),
        failed_calls=sum(u.failed_call_count for u in units),
    )


def mcq_home_queues(*, user) -> dict:
    """The home card of item review, for item reviewers only: one query."""
    if not (user_roles(user) & set(ITEM_REVIEWER_ROLES)):
        return {}
    counts = McqItem.objects.aggregate(
        flagged=Count("pk", filter=Q(status=McqItem.Status.FLAGGED)),
        incomplete=Count("pk", filter=Q(status=McqItem.Status.NEEDS_COMPLETION)),
    )
    count = counts["flagged"] + counts["incomplete"]
    return {
        "mcq_item_review": {
            "count": count,
            "url": reverse("mcq:queue"),
            "label": f"{counted(count, 'MCQ item')} awaiting review "
            f"({counts['flagged']} flagged by "
            f"screening, {counts['incomplete']} needing completion)",
        }
    }


# --- Construction-export chain sections (adjudication.export.chain) -----------------------


def chain_screening(items) -> dict:
    """Every screening of every exported item, oldest first."""
    out: dict = {}
    rows = (
        McqScreening.objects.filter(item__in=[i.pk for i in items])
        .select_related("item_version")
        .order_by("item_id", "created_at", "pk")
    )
    for s in rows:
        out.setdefault(s.item_id, []).append(
            {
                "item_version": s.item_version.number,
                "outcome": s.outcome,
                "attempts": s.attempts,
                "attempt_errors": s.attempt_errors,
                "needs_human_review": s.needs_human_review,
                "output": s.output,
                "prompt_sha256": s.prompt_sha256,
                "finished_at": s.finished_at.isoformat() if s.finished_at else None,
            }
        )
    return out


def chain_item_review(items) -> dict:
    """Every review decision of every exported item, oldest first."""
    out: dict = {}
    rows = (
        McqReviewDecision.objects.filter(item__in=[i.pk for i in items])
        .select_related("item_version", "result_version", "reviewer")
        .order_by("item_id", "decided_at", "pk")
    )
    for d in rows:
        out.setdefault(d.item_id, []).append(
            {
                "action": d.action,
                "item_version": d.item_version.number,
                "result_version": d.result_version.number if d.result_version else None,
                "reviewer": d.reviewer.username,
                "note": d.note,
                "decided_at": d.decided_at.isoformat(),
            }
        )
    return out
