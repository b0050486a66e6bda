"""Reads of the blinded comparison. The only reader of assignments and judgments for
annotators: what the annotator reads return carries letters and text, never a candidate's
id, family, model, run or anything ordered by them (App. D.2: "model-family identities
were hidden").

The construction-export chain sections at the end (``chain_candidates``,
``chain_comparison``) are the construction team's record, with candidate ids and
families: only the final-set export calls them.
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import (
    Count,
    Exists,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from annotation.candidate_screening.selectors import open_flag_candidates, open_flags_of
from annotation.comparison.models import (
    COMPARISON_CRITERIA,
    COMPARISON_LETTERS,
    ComparisonDraft,
    ComparisonJudgment,
    ComparisonJudgmentVersion,
    ComparisonPair,
    PairAssignment,
)
from annotation.comparison.queue import AnnotatorQueue as AnnotatorQueue
from annotation.comparison.queue import QueueRow as QueueRow
from annotation.comparison.queue import comparison_queue as comparison_queue
from annotation.comparison.queue import queue_row as queue_row
from annotation.corpus.models import Memory
from annotation.generation.models import Candidate, LlmCallRecord
from audit.memory_quality.corpus import audited_memories
from core.plurals import counted
from core.roles import Role, user_roles


@dataclass(frozen=True)
class BlindMemory:
    memory_id: str
    timeline: str
    content_summary: str
    content_full: str
    psych_conclusion: str
    behavior_policy: str
    event_age: int | None = None
    life_stage: str = ""


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
    draft_saved_at: object = None

    @property
    def autosave_status(self) -> str:
        """What the autosave label says on load: true from the start, before any change."""
        if not self.is_open:
            return "Off: this pair is closed."
        if self.draft_saved_at is not None:
            return draft_saved_label(self.draft_saved_at)
        return "Not saved yet. Changes save automatically as a draft."


def draft_saved_label(saved_at) -> str:
    """'Draft saved at 14:02.' today; the date too on another day (local time)."""
    local = timezone.localtime(saved_at)
    if local.date() == timezone.localdate():
        return f"Draft saved at {local:%H:%M}."
    return f"Draft saved on {local.day} {local:%b %Y} at {local:%H:%M}."


#: A memory's long texts: what the comparison page loads only when a panel opens.
MEMORY_TEXTS = ("context", "content_full", "psych_conclusion", "behavior_policy")


def memories_by_id(character_id: int, ids: set[str], *, texts=True) -> dict[str, Memory]:
    """The cited memories that are in the character's audited corpus (App. B.6); a
    memory the audit left out (a duplicate) is not among them. ``texts=False`` leaves
    their long texts unread."""
    rows = audited_memories(character_id).filter(Q(memory_id__in=ids) | Q(anonymized_id__in=ids))
    if not texts:
        rows = rows.defer(*MEMORY_TEXTS)
    found = {}
    for m in rows:
        found[m.memory_id] = m
        found[m.anonymized_id] = m
    return found


def blind_memories(ids, by_id, *, texts=True) -> list[BlindMemory]:
    """The candidate's activated memories an annotator sees: those of the audited corpus
    only, so a memory the audit left out is never shown. ``texts=False``: the summary
    lines only (the texts empty), for memories read with ``texts=False``."""
    out = []
    for memory_id in ids:
        m = by_id.get(memory_id)
        if m is not None:
            out.append(
                BlindMemory(
                    m.memory_id,
                    m.timeline,
                    m.content_summary,
                    m.content_full if texts else "",
                    m.psych_conclusion if texts else "",
                    m.behavior_policy if texts else "",
                    m.event_age,
                    m.life_stage,
                )
            )
    return out


def _own_assignment(public_id, user):
    return (
        PairAssignment.objects.filter(public_id=public_id, annotator=user)
        .select_related("pair__character", "pair__scenario", "pair__profile_version")
        .first()
    )


def comparison_page(*, public_id, user, memory_texts=True) -> ComparisonPage | None:
    """The annotator's page of one assignment; None when it is not theirs. A fixed
    number of queries whatever the number of memories. ``memory_texts=False``: the
    activated memories' summary lines only; the page loads a memory's texts with
    ``comparison_memory`` when its panel opens (issue #34)."""
    assignment = _own_assignment(public_id, user)
    if assignment is None:
        return None
    pair = assignment.pair
    candidates = Candidate.objects.in_bulk(assignment.permutation)
    wanted = {i for c in candidates.values() for i in c.activated_memory_ids or []}
    by_id = memories_by_id(pair.character_id, wanted, texts=memory_texts)
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
                memories=blind_memories(c.activated_memory_ids or [], by_id, texts=memory_texts),
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
        draft_saved_at=draft.updated_at if draft else None,
    )


def comparison_memory(*, public_id, user, memory_id: str) -> BlindMemory | None:
    """One activated memory of the annotator's assignment, with its texts: what a panel
    of the comparison page shows when it opens. None unless the assignment is the
    user's and one of its candidates cites the memory from the audited corpus."""
    assignment = (
        PairAssignment.objects.filter(public_id=public_id, annotator=user)
        .values("permutation", "pair__character_id")
        .first()
    )
    if assignment is None:
        return None
    memory = memories_by_id(assignment["pair__character_id"], {memory_id}).get(memory_id)
    if memory is None:
        return None
    # A candidate may cite the memory by its id or by its anonymized id.
    cited = Q(activated_memory_ids__contains=[memory.memory_id]) | Q(
        activated_memory_ids__contains=[memory.anonymized_id]
    )
    if not Candidate.objects.filter(cited, pk__in=assignment["permutation"]).exists():
        return None
    found = blind_memories([memory_id], {memory_id: memory})
    return found[0] if found else None


def waiting_flags(pairs) -> dict[int, list[int]]:
    """{pair pk: [open leak flag pk, ...]} for the pairs that wait for a flag."""
    through = ComparisonPair.candidates.through.objects.filter(comparisonpair__in=pairs)
    by_candidate = open_flags_of(through.values_list("candidate_id", flat=True))
    out: dict[int, list[int]] = {}
    for pair_id, candidate_id in through.values_list("comparisonpair_id", "candidate_id"):
        if candidate_id in by_candidate:
            out.setdefault(pair_id, []).append(by_candidate[candidate_id])
    return {k: sorted(v) for k, v in out.items()}


def comparison_assignable(*, status: str = "", waiting: bool | None = None):
    """Pairs for the admin's assignment page in pair order, as a queryset filtered in the
    database: each annotated with ``n_assigned`` (its assignments) and ``waits`` (one of
    its candidates has an open leak flag). Nothing is read until a page of it is taken;
    ``with_waiting_flags`` then names the flags of that page only (issue #34)."""
    flagged = ComparisonPair.candidates.through.objects.filter(
        comparisonpair=OuterRef("pk"), candidate__in=open_flag_candidates()
    )
    assigned = (
        PairAssignment.objects.filter(pair=OuterRef("pk"))
        .order_by()
        .values("pair")
        .annotate(n=Count("pk"))
        .values("n")
    )
    pairs = ComparisonPair.objects.select_related("character", "scenario").annotate(
        n_assigned=Coalesce(Subquery(assigned), 0), waits=Exists(flagged)
    )
    if status:
        pairs = pairs.filter(status=status)
    if waiting is not None:
        pairs = pairs.filter(waits=waiting)
    return pairs.order_by("character__key", "scenario__scenario_id", "round", "pk")


def with_waiting_flags(pairs) -> list:
    """The given pairs (a page of ``comparison_assignable``), each with ``waiting_flags``:
    the pks of its open leak flags (one query for the whole page)."""
    pairs = list(pairs)
    waiting = waiting_flags(pairs)
    for pair in pairs:
        pair.waiting_flags = waiting.get(pair.pk, [])
    return pairs


def comparison_regenerations_waiting():
    """Pairs sent back for regeneration whose next round does not exist yet, with their
    run: what the assignment page and the pipeline list so that none is forgotten."""
    return list(
        ComparisonPair.objects.filter(
            status=ComparisonPair.Status.REGENERATING, next_round__isnull=True
        )
        .select_related("character", "scenario", "regeneration_run")
        .order_by("character__key", "scenario__scenario_id")
    )


def comparison_home_queues(*, user) -> dict:
    """The primary annotators' home card: pairs awaiting their comparison (one query).
    The arbitrators' card of escalated pairs is arbitration's
    (``adjudication.arbitration.selectors.arbitration_home_queues``)."""
    if Role.PRIMARY_ANNOTATOR not in user_roles(user):
        return {}
    count = (
        PairAssignment.objects.filter(annotator=user, pair__status=ComparisonPair.Status.ANNOTATING)
        .exclude(pair__candidates__in=open_flag_candidates())
        .exclude(Exists(ComparisonJudgment.objects.filter(assignment=OuterRef("pk"))))
        .count()
    )
    return {
        "comparison": {
            "count": count,
            "url": reverse("comparison:queue"),
            "label": f"{counted(count, 'pair')} awaiting your comparison",
        }
    }


# --- Construction-export chain sections (adjudication.export.chain) -----------------------
# Each reads with a fixed number of queries for the whole item list and returns
# ``{item.pk: jsonable}`` with lists in a fixed order (exports are byte-identical).


def _iso(value):
    return value.isoformat() if value is not None else None


def _username(user):
    return user.get_username() if user is not None else None


def _pairs_of(items) -> dict:
    """{(character pk, scenario pk): [item pk, ...]}"""
    out = defaultdict(list)
    for item in items:
        out[(item.character_id, item.scenario_id)].append(item.pk)
    return out


def by_item_of_pair(items, rows_by_pair: dict) -> dict:
    """Spread ``{(character pk, scenario pk): row}`` over the items of each pair:
    ``{item pk: row}`` (construction-export chain sections are keyed by item)."""
    out = {}
    for pair, item_pks in _pairs_of(items).items():
        if pair in rows_by_pair:
            for pk in item_pks:
                out[pk] = rows_by_pair[pair]
    return out


def _pair_filter(items) -> dict:
    return {
        "character_id__in": sorted({i.character_id for i in items}),
        "scenario_id__in": sorted({i.scenario_id for i in items}),
    }


def chain_candidates(items) -> dict:
    """Construction-export chain section "candidates": every candidate of the item's pair,
    with the run, unit and LLM calls behind it."""
    if not items:
        return {}
    wanted = set(_pairs_of(items))
    in_pairs = dict(
        ComparisonPair.candidates.through.objects.filter(
            comparisonpair__character_id__in=[c for c, _ in wanted],
            comparisonpair__scenario_id__in=[s for _, s in wanted],
        ).values_list("candidate_id", "comparisonpair__round")
    )
    rows = defaultdict(list)
    for c in (
        Candidate.objects.filter(**_pair_filter(items))
        .select_related(
            "run__screening_prompt",
            "run__reranking_prompt",
            "run__response_prompt",
            "run__created_by",
            "unit",
            "profile_version",
        )
        .prefetch_related(
            Prefetch("unit__calls", queryset=LlmCallRecord.objects.order_by("created_at", "pk"))
        )
        .order_by("pk")
    ):
        pair = (c.character_id, c.scenario_id)
        if pair not in wanted:
            continue
        rows[pair].append(_candidate(c, c.pk in in_pairs) | {"round": in_pairs.get(c.pk)})
    return by_item_of_pair(items, rows)


def _candidate(c, in_comparison: bool) -> dict:
    run, unit = c.run, c.unit
    return {
        "id": c.pk,
        "family": c.family,
        "model_name": c.model_name,
        "origin": c.origin,
        "source": c.source,
        "in_comparison_pair": in_comparison,
        "profile_version": c.profile_version.number if c.profile_version else None,
        "summary": c.summary,
        "emotional_tone": c.emotional_tone,
        "core_reasoning": c.core_reasoning,
        "final_decision": c.final_decision,
        "activated_memory_ids": c.activated_memory_ids,
        "created_at": _iso(c.created_at),
        "run": (
            {
                "id": run.pk,
                "status": run.status,
                "families": run.families,
                "models": run.models,
                "activation_models": run.activation_models,
                "guidance": run.guidance,
                "prompts": {
                    p.stage: p.number
                    for p in (run.screening_prompt, run.reranking_prompt, run.response_prompt)
                },
                "created_by": _username(run.created_by),
                "created_at": _iso(run.created_at),
                "finished_at": _iso(run.finished_at),
            }
            if run
            else None
        ),
        "unit": (
            {
                "id": unit.pk,
                "status": unit.status,
                "stage_reached": unit.stage_reached,
                "attempts": unit.attempts,
                "reranking_skipped": unit.reranking_skipped,
                "eligible_memory_ids": unit.eligible_memory_ids,
                "screened_memory_ids": unit.screened_memory_ids,
                "activated_memory_ids": unit.activated_memory_ids,
                "tokens_in": unit.tokens_in,
                "tokens_out": unit.tokens_out,
                "cost_usd": str(unit.cost_usd),
                "calls": [
                    {
                        "stage": call.stage,
                        "provider": call.provider,
                        "model": call.model,
                        "prompt_hash": call.prompt_hash,
                        "ok": call.ok,
                        "attempt_count": call.attempt_count,
                        "error_kind": call.error_kind,
                        "tokens_in": call.tokens_in,
                        "tokens_out": call.tokens_out,
                        "created_at": _iso(call.created_at),
                    }
                    for call in unit.calls.all()
                ],
            }
            if unit
            else None
        ),
    }


def chain_comparison(items) -> dict:
    """Construction-export chain section "comparison": the pair's blinded comparison, each
    annotator's letters → candidates and every submitted version of their judgment
    (canonical candidate ids, not letters only). Construction team only: never shown to
    annotators."""
    if not items:
        return {}
    rows = {}
    pairs = (
        ComparisonPair.objects.filter(**_pair_filter(items))
        .select_related("profile_version", "created_by")
        .prefetch_related(
            "candidates",
            Prefetch(
                "assignments",
                queryset=PairAssignment.objects.select_related(
                    "annotator", "assigned_by", "judgment"
                ).order_by("pk"),
            ),
            Prefetch(
                "assignments__judgment__versions",
                queryset=ComparisonJudgmentVersion.objects.order_by("number"),
            ),
        )
        .order_by("pk")
    )
    rounds = defaultdict(list)
    for pair in pairs:
        rounds[(pair.character_id, pair.scenario_id)].append(_pair_round(pair))
    # The latest round at the top (the one that set the reference), earlier rounds, sent
    # back for regeneration (issue #22), oldest first beside it.
    for key, found in rounds.items():
        found.sort(key=lambda r: r["round"])
        rows[key] = {**found[-1], "earlier_rounds": found[:-1]}
    return by_item_of_pair(items, rows)


def _pair_round(pair) -> dict:
    return {
        "pair_id": pair.pk,
        "round": pair.round,
        "previous_round": pair.previous_round_id,
        "regeneration_run": pair.regeneration_run_id,
        "status": pair.status,
        "profile_version": pair.profile_version.number,
        "candidates": sorted(c.pk for c in pair.candidates.all()),
        "escalation_reasons": pair.escalation_reasons,
        "created_by": _username(pair.created_by),
        "created_at": _iso(pair.created_at),
        "routed_at": _iso(pair.routed_at),
        "assignments": [_assignment(a) for a in pair.assignments.all()],
    }


def _judgment(content) -> dict:
    return {**content.content(), "selected_candidate": content.selected_candidate_id}


def _assignment(a) -> dict:
    judgment = getattr(a, "judgment", None)
    return {
        "annotator": _username(a.annotator),
        "batch": a.batch,
        "permutation": a.permutation,
        "assigned_by": _username(a.assigned_by),
        "assigned_at": _iso(a.assigned_at),
        "judgment": (
            {
                **_judgment(judgment),
                "version": judgment.version,
                "submitted_at": _iso(judgment.submitted_at),
                "versions": [
                    {**_judgment(v), "number": v.number, "created_at": _iso(v.created_at)}
                    for v in judgment.versions.all()
                ],
            }
            if judgment
            else None
        ),
    }
