"""Creating evaluation instances (seed 000 §2.4): generation to the label audit."""

from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqAssemblyRun, McqItem, McqScreening
from annotation.comparison.models import ComparisonPair, PairAssignment
from annotation.generation.models import Candidate, GenerationRun, GenerationUnit
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core.protocol import (
    ANNOTATORS_PER_PAIR,
    AUDIT_EXPERTS,
)

from .rows import Blocker, Stage, Tally, plural, waits

# --- Evaluation instances (§2.4) --------------------------------------------------------


def generation_stage() -> Stage:
    # A failed unit stops blocking once the same character, scenario and family has a
    # candidate from a later unit (another run, or a regeneration).
    replaced = Exists(
        GenerationUnit.objects.filter(
            character_id=OuterRef("units__character_id"),
            scenario_id=OuterRef("units__scenario_id"),
            family=OuterRef("units__family"),
            status=GenerationUnit.Status.SUCCEEDED,
            pk__gt=OuterRef("units__pk"),
        )
    )
    runs = list(
        GenerationRun.objects.annotate(
            units_total=Count("units"),
            units_failed=Count(
                "units", filter=Q(units__status=GenerationUnit.Status.FAILED) & ~Q(replaced)
            ),
        )
        .order_by("pk")
        .values_list("pk", "status", "units_total", "units_failed")
    )
    pairs = Candidate.objects.values("character_id", "scenario_id").distinct().count()
    in_comparison = ComparisonPair.objects.filter(
        character_id=OuterRef("character_id"), scenario_id=OuterRef("scenario_id")
    )
    unassigned = (
        Candidate.objects.exclude(Exists(in_comparison))
        .values("character_id", "scenario_id")
        .distinct()
        .count()
    )
    stage = Stage(
        "generation",
        "Pairs generated",
        "§2.4 Stage 1, App. D.1",
        [
            Tally("(character, scenario) pairs with candidates", pairs, emphasis=True),
            Tally("generation runs", len(runs)),
        ],
        links=[("Generation runs", reverse("corpus:generation-list"))],
    )
    active = {
        GenerationRun.Status.PENDING,
        GenerationRun.Status.RUNNING,
        GenerationRun.Status.CANCELLING,
    }
    for run_id, status, total, failed in runs:
        url = reverse("corpus:generation-detail", args=[run_id])
        if status in active:
            stage.blockers.append(
                Blocker(f"Generation run #{run_id} is {status} ({total} units).", url)
            )
        elif failed:
            stage.blockers.append(
                Blocker(
                    f"{plural(failed, 'unit')} of generation run #{run_id} failed: retry them "
                    "(admin).",
                    url,
                )
            )
    if unassigned:
        stage.blockers.append(
            Blocker(
                f"{plural(unassigned, 'generated pair')} {waits(unassigned)} to be created "
                "and assigned for comparison (admin).",
                reverse("comparison:assign"),
            )
        )
    return stage


def judging_stage(by_status: dict[str, int]) -> Stage:
    total = sum(by_status.values())
    annotating = by_status.get(ComparisonPair.Status.ANNOTATING, 0)
    short_handed = (
        ComparisonPair.objects.filter(status=ComparisonPair.Status.ANNOTATING)
        .annotate(n=Count("assignments"))
        .filter(n__lt=ANNOTATORS_PER_PAIR)
        .count()
    )
    pending = list(
        PairAssignment.objects.filter(
            pair__status=ComparisonPair.Status.ANNOTATING, judgment__isnull=True
        )
        .values_list("annotator__username")
        .annotate(n=Count("pk"))
        .order_by("-n", "annotator__username")
    )
    stage = Stage(
        "judging",
        "Pairs judged",
        "§2.4 Stage 2, App. D.2",
        [
            Tally("pairs judged by all three annotators", total - annotating, emphasis=True),
            Tally("pairs in comparison", total),
        ],
        links=[("Assign pairs", reverse("comparison:assign"))],
    )
    for username, n in pending:
        stage.blockers.append(
            Blocker(
                f"{plural(n, 'pair')} {waits(n)} for {username}'s judgments.",
                reverse("comparison:assign"),
            )
        )
    if short_handed:
        stage.blockers.append(
            Blocker(
                f"{plural(short_handed, 'pair')} {'has' if short_handed == 1 else 'have'} "
                f"fewer than {ANNOTATORS_PER_PAIR} annotators assigned (admin).",
                reverse("comparison:assign"),
            )
        )
    return stage


def adjudication_stage(by_status: dict[str, int]) -> Stage:
    adopted = by_status.get(ComparisonPair.Status.ADOPTED, 0)
    resolved = by_status.get(ComparisonPair.Status.RESOLVED, 0)
    discarded = by_status.get(ComparisonPair.Status.DISCARDED, 0)
    escalated = by_status.get(ComparisonPair.Status.ESCALATED, 0)
    decided = (
        ComparisonPair.Status.ADOPTED,
        ComparisonPair.Status.RESOLVED,
        ComparisonPair.Status.DISCARDED,
    )
    later_round = ComparisonPair.objects.filter(
        next_round__isnull=True, round__gt=1, status__in=decided
    ).count()
    stage = Stage(
        "adjudication",
        "Adopted unanimously / arbitrated / discarded",
        "§2.4 Stage 2, App. D.2",
        [
            Tally("pairs decided", adopted + resolved + discarded, emphasis=True),
            Tally("adopted unanimously", adopted),
            Tally("arbitrated", resolved),
            Tally("discarded", discarded),
            Tally("decided in a round after regeneration", later_round),
        ],
        links=[
            ("Arbitration queue", reverse("adjudication:queue")),
            ("Outcomes", reverse("adjudication:outcomes")),
        ],
    )
    regenerating = ComparisonPair.objects.filter(
        status=ComparisonPair.Status.REGENERATING, next_round__isnull=True
    ).count()
    if regenerating:
        stage.blockers.append(
            Blocker(
                f"{plural(regenerating, 'pair')} sent back for regeneration {waits(regenerating)} "
                "for new candidates and the next round's pair (admin).",
                reverse("comparison:assign"),
            )
        )
    if escalated:
        stage.blockers.append(
            Blocker(
                f"{plural(escalated, 'escalated pair')} {waits(escalated)} for the arbitrator.",
                reverse("adjudication:queue"),
            )
        )
    return stage


def references_stage() -> Stage:
    current = ReferenceResponse.objects.filter(superseded_at__isnull=True)
    by_type = dict(current.values_list("decision_type").annotate(n=Count("pk")).order_by())
    has_item = McqItem.objects.filter(
        character_id=OuterRef("character_id"), scenario_id=OuterRef("scenario_id")
    )
    awaiting = current.exclude(Exists(has_item)).count()
    stage = Stage(
        "references",
        "References",
        "§2.4 Stage 2",
        [Tally("current references", sum(by_type.values()), emphasis=True)]
        + [
            Tally(label.lower(), by_type[value])
            for value, label in ReferenceResponse.DecisionType.choices
            if by_type.get(value)
        ],
        links=[("Assembly runs", reverse("mcq:runs"))],
    )
    if awaiting:
        stage.blockers.append(
            Blocker(
                f"{plural(awaiting, 'reference')} {waits(awaiting)} for MCQ assembly (admin).",
                reverse("mcq:runs"),
            )
        )
    return stage


def items_stage(by_status: dict[str, int]) -> Stage:
    screened = (
        McqScreening.objects.exclude(outcome=McqScreening.Outcome.PENDING)
        .values("item_id")
        .distinct()
        .count()
    )
    running = list(
        McqAssemblyRun.objects.filter(
            status__in=[McqAssemblyRun.Status.QUEUED, McqAssemblyRun.Status.RUNNING]
        )
        .order_by("pk")
        .values_list("pk", "status", "processed", "total")
    )
    Status = McqItem.Status
    stage = Stage(
        "items",
        "Items assembled / screened / flagged / final",
        "§2.4 Stage 3, App. D.3",
        [
            Tally("final", by_status.get(Status.FINAL, 0), emphasis=True),
            Tally("items", sum(by_status.values())),
            Tally("screened by the LLM judge", screened),
            Tally("flagged", by_status.get(Status.FLAGGED, 0)),
            Tally("removed", by_status.get(Status.REMOVED, 0)),
        ],
        links=[
            ("Item review", reverse("mcq:queue")),
            ("Assembly runs", reverse("mcq:runs")),
            ("Screener against the reviewers", reverse("mcq:screener-agreement")),
        ],
    )
    for run_id, status, processed, total in running:
        stage.blockers.append(
            Blocker(
                f"Assembly run #{run_id} is {status} ({processed} of {total} pairs).",
                reverse("mcq:run", args=[run_id]),
            )
        )
    queue = reverse("mcq:queue")
    flagged = by_status.get(Status.FLAGGED, 0)
    if flagged:
        stage.blockers.append(
            Blocker(
                f"{plural(flagged, 'flagged item')} {waits(flagged)} for item review (arbitrator).",
                queue + "?status=flagged",
            )
        )
    incomplete = by_status.get(Status.NEEDS_COMPLETION, 0)
    if incomplete:
        stage.blockers.append(
            Blocker(
                f"{plural(incomplete, 'item')} with fewer than three valid distractors "
                f"{waits(incomplete)} for completion (arbitrator).",
                queue + "?status=needs_completion",
            )
        )
    screening = by_status.get(Status.SCREENING, 0)
    if screening:
        stage.blockers.append(
            Blocker(
                f"{plural(screening, 'item')} {waits(screening)} for the LLM screening judge.",
                queue,
            )
        )
    return stage


def label_audit_stage() -> Stage:
    audits = list(
        LabelAudit.objects.annotate(
            sampled=Count("items"),
            agreed=Count("items", filter=Q(items__status=LabelAuditItem.Status.APPROVED)),
            selecting=Count("items", filter=Q(items__status=LabelAuditItem.Status.SELECTING)),
            adjudicating=Count("items", filter=Q(items__status=LabelAuditItem.Status.ADJUDICATING)),
        )
        .order_by("pk")
        .values_list(
            "pk",
            "status",
            "adjudicator__username",
            "sampled",
            "agreed",
            "selecting",
            "adjudicating",
        )
    )
    open_ids = [row[0] for row in audits if row[1] == LabelAudit.Status.SELECTING]
    experts = list(
        LabelAuditExpert.objects.filter(audit_id__in=open_ids)
        .order_by("audit_id", "position")
        .values_list("audit_id", "expert_id", "expert__username")
    )
    submitted = {
        (audit_id, expert_id): n
        for audit_id, expert_id, n in LabelSelection.objects.filter(
            audit_item__audit_id__in=open_ids,
            audit_item__status=LabelAuditItem.Status.SELECTING,
            submitted_at__isnull=False,
        )
        .values_list("audit_item__audit_id", "expert_id")
        .annotate(n=Count("pk"))
        .order_by()
    }
    latest = audits[-1] if audits else None
    stage = Stage(
        "label_audit",
        "Label audit",
        "§2.4, App. D.4",
        [
            Tally("items sampled (latest audit)", latest[3] if latest else 0, emphasis=True),
            Tally(f"{AUDIT_EXPERTS}/{AUDIT_EXPERTS} on the key", latest[4] if latest else 0),
            Tally("audits", len(audits)),
        ],
        links=[("Label audits", reverse("audit:labels:home"))],
    )
    selecting_by_audit = {row[0]: row[5] for row in audits}
    for audit_id, expert_id, username in experts:
        pending = selecting_by_audit[audit_id] - submitted.get((audit_id, expert_id), 0)
        if pending > 0:
            stage.blockers.append(
                Blocker(
                    f"{plural(pending, 'item')} of label audit #{audit_id} {waits(pending)} "
                    f"for {username}'s selection.",
                    reverse("audit:labels:audit", args=[audit_id]),
                )
            )
    for audit_id, _, adjudicator, _, _, _, adjudicating in audits:
        if adjudicating:
            stage.blockers.append(
                Blocker(
                    f"{plural(adjudicating, 'item')} of label audit #{audit_id} "
                    f"{waits(adjudicating)} for the adjudicator {adjudicator}.",
                    reverse("audit:labels:audit", args=[audit_id]),
                )
            )
    return stage
