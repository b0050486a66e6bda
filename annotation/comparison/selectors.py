"""Reads of the blinded comparison. The only reader of assignments and judgments for
annotators: what it returns carries letters and text, never a candidate's id, family,
model, run or anything ordered by them (App. D.2: "model-family identities were hidden").
"""

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse

from annotation.comparison.models import (
    COMPARISON_CRITERIA,
    COMPARISON_LETTERS,
    ComparisonDraft,
    ComparisonJudgment,
    ComparisonPair,
    PairAssignment,
)
from annotation.corpus.models import Memory
from annotation.generation.models import Candidate
from heartbench_site.base.roles import Role, user_roles


@dataclass(frozen=True)
class BlindMemory:
    memory_id: str
    timeline: str
    content_summary: str
    content_full: str
    psych_conclusion: str
    behavior_policy: str


@dataclass(frozen=True)
class BlindCandidate:
    """A candidate as an annotator sees it: a letter and text, nothing else."""

    letter: str
    summary: str
    emotional_tone: str
    core_reasoning: str
    final_decision: str
    memories: list[BlindMemory]


@dataclass
class ComparisonPage:
    public_id: str
    pair: ComparisonPair
    version: object
    scenario: object
    candidates: list[BlindCandidate]
    judgment: ComparisonJudgment | None
    draft: dict
    is_open: bool
    versions: int = 0
    criteria: tuple = COMPARISON_CRITERIA


@dataclass
class QueueRow:
    public_id: str
    character_key: str
    scenario_id: str
    scenario_name: str
    batch: int
    state: str  # "done", "in progress", "remaining"
    routed: bool


@dataclass
class AnnotatorQueue:
    rows: list[QueueRow] = field(default_factory=list)

    def count(self, state):
        return sum(1 for r in self.rows if r.state == state)

    @property
    def done(self):
        return self.count("done")

    @property
    def in_progress(self):
        return self.count("in progress")

    @property
    def remaining(self):
        return self.count("remaining")

    @property
    def resume(self) -> QueueRow | None:
        """Where to pick up: the first pair in progress, else the first not started."""
        for state in ("in progress", "remaining"):
            for row in self.rows:
                if row.state == state and not row.routed:
                    return row
        return None


def comparison_queue(*, user) -> AnnotatorQueue:
    """The annotator's assignments in batch and pair order (never database order)."""
    rows = (
        PairAssignment.objects.filter(annotator=user)
        .select_related("pair__character", "pair__scenario")
        .annotate(
            submitted=Exists(ComparisonJudgment.objects.filter(assignment=OuterRef("pk"))),
            drafted=Exists(ComparisonDraft.objects.filter(assignment=OuterRef("pk"))),
        )
    )
    queue = AnnotatorQueue()
    for a in rows:
        state = "done" if a.submitted else "in progress" if a.drafted else "remaining"
        queue.rows.append(
            QueueRow(
                public_id=str(a.public_id),
                character_key=a.pair.character.key,
                scenario_id=a.pair.scenario.scenario_id,
                scenario_name=a.pair.scenario.name,
                batch=a.batch,
                state=state,
                routed=not a.pair.is_open,
            )
        )
    return queue


def _memories_by_id(character_id: int, ids: set[str]) -> dict[str, Memory]:
    rows = Memory.objects.filter(character_id=character_id).filter(
        Q(memory_id__in=ids) | Q(anonymized_id__in=ids)
    )
    found = {}
    for m in rows:
        found[m.memory_id] = m
        found[m.anonymized_id] = m
    return found


def _blind_memories(ids, by_id) -> list[BlindMemory]:
    out = []
    for memory_id in ids:
        m = by_id.get(memory_id)
        if m is None:
            out.append(BlindMemory(memory_id, "", "(memory not in the corpus)", "", "", ""))
        else:
            out.append(
                BlindMemory(
                    m.memory_id,
                    m.timeline,
                    m.content_summary,
                    m.content_full,
                    m.psych_conclusion,
                    m.behavior_policy,
                )
            )
    return out


def comparison_page(*, public_id, user) -> ComparisonPage | None:
    """The annotator's page of one assignment; None when it is not theirs. A fixed
    number of queries whatever the number of memories."""
    assignment = (
        PairAssignment.objects.filter(public_id=public_id, annotator=user)
        .select_related("pair__character", "pair__scenario", "pair__profile_version")
        .first()
    )
    if assignment is None:
        return None
    pair = assignment.pair
    candidates = Candidate.objects.in_bulk(assignment.permutation)
    wanted = {i for c in candidates.values() for i in c.activated_memory_ids or []}
    by_id = _memories_by_id(pair.character_id, wanted)
    blind = []
    for letter, candidate_id in zip(COMPARISON_LETTERS, assignment.permutation, strict=True):
        c = candidates[candidate_id]
        blind.append(
            BlindCandidate(
                letter=letter,
                summary=c.summary,
                emotional_tone=c.emotional_tone,
                core_reasoning=c.core_reasoning,
                final_decision=c.final_decision,
                memories=_blind_memories(c.activated_memory_ids or [], by_id),
            )
        )
    judgment = ComparisonJudgment.objects.filter(assignment=assignment).first()
    draft = ComparisonDraft.objects.filter(assignment=assignment).first()
    return ComparisonPage(
        public_id=str(assignment.public_id),
        pair=pair,
        version=pair.profile_version,
        scenario=pair.scenario,
        candidates=blind,
        judgment=judgment,
        draft=draft.data if draft else {},
        is_open=pair.is_open,
        versions=judgment.version if judgment else 0,
    )


def comparison_assignable(*, run_id=None):
    """Pairs for the admin's assignment page, with their assignment counts."""
    pairs = ComparisonPair.objects.select_related("character", "scenario").annotate(
        n_assigned=Count("assignments")
    )
    return list(pairs)


def comparison_home_queues(*, user) -> dict:
    """The home cards of the comparison workflow, for the roles ``user`` holds only: one
    query per card."""
    from adjudication.arbitration.selectors import escalated_count

    held = user_roles(user)
    cards = {}
    if Role.PRIMARY_ANNOTATOR in held:
        count = (
            PairAssignment.objects.filter(
                annotator=user, pair__status=ComparisonPair.Status.ANNOTATING
            )
            .exclude(Exists(ComparisonJudgment.objects.filter(assignment=OuterRef("pk"))))
            .count()
        )
        cards["comparison"] = {
            "count": count,
            "url": reverse("comparison:queue"),
            "label": f"{count} pair(s) awaiting your comparison",
        }
    if Role.ARBITRATOR in held:
        count = escalated_count()
        cards["escalated"] = {
            "count": count,
            "url": reverse("adjudication:queue"),
            "label": f"{count} escalated comparison(s) awaiting arbitration",
        }
    return cards
