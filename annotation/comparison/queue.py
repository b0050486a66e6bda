"""The annotator's comparison queue, read a page at a time: the assignments as one
annotated queryset in queue order (batch, then pair; never database ids), with the
counts, the pair to resume and the pair after another each taken in one query, so that
neither the page nor its API builds a row for every assignment (issue #34)."""

from dataclasses import dataclass
from functools import cached_property

from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)

from annotation.candidate_screening.selectors import open_flag_candidates
from annotation.comparison.models import (
    ComparisonDraft,
    ComparisonJudgment,
    ComparisonPair,
    PairAssignment,
)
from core.display import character_name, scenario_title


@dataclass
class QueueRow:
    public_id: str
    character_key: str
    scenario_id: str
    scenario_name: str
    batch: int
    state: str  # "done", "in progress", "remaining" (the API's filter values)
    routed: bool
    # How the pages name the pair: ``Character 3 × The Entrusted Caretaker``.
    title: str = ""
    character_name: str = ""
    scenario_title: str = ""

    @property
    def state_label(self) -> str:
        """Where the pair stands for this annotator, in words. Says nothing of the other
        annotators' answers or of the routing's outcome (blinding)."""
        if self.routed:
            if self.state == "done":
                return "Submitted — closed: all annotators have judged it"
            return "Closed before you submitted"
        return {
            "done": "Submitted — waiting for the other annotators",
            "in progress": "Draft saved, not submitted",
            "remaining": "Not started",
        }[self.state]

    @property
    def is_waiting(self) -> bool:
        """Still needs this annotator's judgment."""
        return self.state != "done" and not self.routed


@dataclass
class AnnotatorQueue:
    """An annotator's queue, read from the database a page at a time: ``rows`` is the
    annotated queryset in queue order, ``row`` turns one of its assignments into a
    ``QueueRow``; the counts, the pair to resume and the pair after another are each one
    query, whatever the size of the queue."""

    assignments: QuerySet

    @property
    def rows(self) -> QuerySet:
        return self.assignments

    @cached_property
    def _counts(self) -> dict:
        return self.assignments.order_by().aggregate(
            done=Count("pk", filter=Q(state="done")),
            in_progress=Count("pk", filter=Q(state="in progress")),
            remaining=Count("pk", filter=Q(state="remaining")),
        )

    def count(self, state):
        return self._counts[state.replace(" ", "_")]

    @property
    def done(self):
        return self.count("done")

    @property
    def in_progress(self):
        return self.count("in progress")

    @property
    def remaining(self):
        return self.count("remaining")

    @cached_property
    def resume(self) -> QueueRow | None:
        """Where to pick up: the first pair in progress, else the first not started."""
        for state in ("in progress", "remaining"):
            first = self.assignments.filter(state=state, routed=False).first()
            if first is not None:
                return queue_row(first)
        return None

    def after(self, public_id: str) -> QueueRow | None:
        """The pair to open once ``public_id`` is judged: the next one in queue order that
        still needs this annotator's judgment, wrapping round to the start; None when
        no other pair does."""
        waiting = self.assignments.exclude(state="done").filter(routed=False)
        waiting = waiting.exclude(public_id=public_id)
        current = self.assignments.filter(public_id=public_id).values(*QUEUE_ORDER).first()
        following = None
        if current is not None:
            following = waiting.filter(_after_in_order(current)).first()
        following = following or waiting.first()
        return queue_row(following) if following is not None else None


#: The queue's order: batch, then pair (never database ids, for blinding); the pair's
#: round and the assignment's pk only break ties, so that paging is stable.
QUEUE_ORDER = (
    "batch",
    "pair__character__key",
    "pair__scenario__scenario_id",
    "pair__round",
    "pk",
)


def _after_in_order(current: dict) -> Q:
    """Rows after ``current`` in ``QUEUE_ORDER`` (all ascending), as one condition."""
    after = Q()
    for at, name in enumerate(QUEUE_ORDER):
        step = Q(**{f"{name}__gt": current[name]})
        for earlier in QUEUE_ORDER[:at]:
            step &= Q(**{earlier: current[earlier]})
        after |= step
    return after


def comparison_queue(*, user) -> AnnotatorQueue:
    """The annotator's assignments in batch and pair order (never database order), as a
    queryset annotated with each one's ``state`` and ``routed`` (the API filters on
    them in the database); nothing is read until a page of it is taken."""
    submitted = Exists(ComparisonJudgment.objects.filter(assignment=OuterRef("pk")))
    drafted = Exists(ComparisonDraft.objects.filter(assignment=OuterRef("pk")))
    assignments = (
        PairAssignment.objects.filter(annotator=user)
        # A pair waiting for a leak flag is in nobody's queue (issue 22).
        .exclude(pair__candidates__in=open_flag_candidates())
        .select_related("pair__character", "pair__scenario")
        .annotate(
            state=Case(
                When(submitted, then=Value("done")),
                When(drafted, then=Value("in progress")),
                default=Value("remaining"),
                output_field=CharField(),
            ),
            routed=ExpressionWrapper(
                ~Q(pair__status=ComparisonPair.Status.ANNOTATING), output_field=BooleanField()
            ),
            character_key=F("pair__character__key"),
            scenario_key=F("pair__scenario__scenario_id"),
        )
        .order_by(*QUEUE_ORDER)
    )
    return AnnotatorQueue(assignments)


def queue_row(a) -> QueueRow:
    """One assignment of ``comparison_queue``'s queryset as the pages show it."""
    return QueueRow(
        public_id=str(a.public_id),
        character_key=a.pair.character.key,
        scenario_id=a.pair.scenario.scenario_id,
        scenario_name=a.pair.scenario.name,
        batch=a.batch,
        state=a.state,
        routed=a.routed,
        title=a.pair.title,
        character_name=character_name(a.pair.character),
        scenario_title=scenario_title(a.pair.scenario),
    )
