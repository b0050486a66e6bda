"""Writes of the blinded three-candidate comparison (seed 000 §2.4 Stage 2, App. D.2).

Every function is one workflow transition: keyword-only, atomic, guarded by the state it
expects, raising ``ComparisonError`` with a message in the guideline's terms. Routing a
pair once every annotator has judged it (consensus-then-arbitration) is the layer above's
(``adjudication.arbitration.services.consensus_route``): :func:`comparison_submit` says
when a pair is complete, and the submit interfaces call the routing next.
"""

import random
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from annotation.candidate_screening.services import screen_pair_candidates
from annotation.comparison.models import (
    COMPARISON_LETTERS,
    CRITERIA_FIELDS,
    JUDGMENT_FIELDS,
    JUDGMENT_TEXT_LABELS,
    JUDGMENT_TEXT_LIMITS,
    ComparisonDraft,
    ComparisonJudgment,
    ComparisonJudgmentVersion,
    ComparisonPair,
    PairAssignment,
    Rating,
    Suitability,
)
from annotation.comparison.selectors import waiting_flags
from annotation.generation.models import Candidate, GenerationRun
from core.protocol import ANNOTATORS_PER_PAIR
from core.roles import Role, has_any_role
from core.text_rules import check_texts

_shuffle = random.SystemRandom().shuffle


class ComparisonError(ValidationError):
    """A comparison action that cannot be carried out as asked; the message says why."""


class ComparisonNotFound(ComparisonError):
    """The assignment named is not the caller's (or does not exist): a 404, not a form
    error."""


def canonical_candidate(*, assignment: PairAssignment, letter: str) -> int:
    """The pk of the candidate shown to this annotator as ``letter``."""
    if letter not in COMPARISON_LETTERS:
        raise ComparisonError(f"Select candidate A, B or C (got {letter!r}).")
    return assignment.permutation[COMPARISON_LETTERS.index(letter)]


def comparison_pairs_create(*, user, run_id: int) -> list[ComparisonPair]:
    """A pair for every (character, scenario) of the run with three candidates and none
    yet, and the next round's pair for every pair the run regenerates (issue #22: a pair
    an arbitrator sent back, whose ``regeneration_run`` this is). Idempotent: the only
    function that creates comparison pairs, first rounds and later ones."""
    if not has_any_role(user, [Role.ADMIN]):
        raise ComparisonError("Only an admin creates comparison pairs.")
    with transaction.atomic():
        run = GenerationRun.objects.filter(pk=run_id).first()
        if run is None:
            raise ComparisonError(f"There is no generation run {run_id}.")
        groups = (
            Candidate.objects.filter(run=run)
            .values("character", "scenario")
            .annotate(n=Count("pk"))
            .filter(n=len(COMPARISON_LETTERS))
        )
        existing = set(ComparisonPair.objects.values_list("character", "scenario"))
        sent_back = {
            (p.character_id, p.scenario_id): p
            for p in ComparisonPair.objects.select_for_update(of=("self",)).filter(
                regeneration_run=run,
                status=ComparisonPair.Status.REGENERATING,
                next_round__isnull=True,
            )
        }
        created = []
        for group in groups:
            key = (group["character"], group["scenario"])
            previous = sent_back.get(key)
            if key in existing and previous is None:
                continue
            candidates = list(
                Candidate.objects.filter(
                    run=run, character_id=key[0], scenario_id=key[1]
                ).select_related("profile_version")
            )
            pair = ComparisonPair.objects.create(
                character_id=key[0],
                scenario_id=key[1],
                profile_version=candidates[0].profile_version,
                created_by=user,
                round=previous.round + 1 if previous else 1,
                previous_round=previous,
            )
            pair.candidates.set(candidates)
            screen_pair_candidates(pair, user=user)  # a leaking candidate makes it wait
            created.append(pair)
        return created


@transaction.atomic
def comparison_pairs_screen(*, user) -> int:
    """Screen again the candidates of every pair still with the annotators (the admin's
    re-run, e.g. after the leak rules changed). Returns the number of flags opened."""
    if not has_any_role(user, [Role.ADMIN]):
        raise ComparisonError("Only an admin screens candidates.")
    opened = 0
    for pair in ComparisonPair.objects.filter(status=ComparisonPair.Status.ANNOTATING):
        opened += len(screen_pair_candidates(pair, user=user))
    return opened


def _shuffled_permutation(pair: ComparisonPair) -> list[int]:
    ids = [c.pk for c in pair.candidates.all()]
    if len(ids) != len(COMPARISON_LETTERS):
        raise ComparisonError(f"{pair} has {len(ids)} candidates; a comparison needs three.")
    _shuffle(ids)
    return ids


def _assignment_plan(pairs, annotators, taken: dict[int, set[int]]) -> dict[int, list]:
    """Who joins each pair: round-robin over ``annotators`` (sorted), skipping anyone
    already on the pair, until the pair has ``ANNOTATORS_PER_PAIR`` distinct annotators
    (the default, three annotators, gives every pair to the same three, as in the paper)."""
    plan = {}
    for i, pair in enumerate(pairs):
        have = set(taken.get(pair.pk, set()))
        chosen = []
        for j in range(len(annotators)):
            if len(have) >= ANNOTATORS_PER_PAIR:
                break
            annotator = annotators[(i * ANNOTATORS_PER_PAIR + j) % len(annotators)]
            if annotator.pk not in have:
                have.add(annotator.pk)
                chosen.append(annotator)
        plan[pair.pk] = chosen
    return plan


@transaction.atomic
def comparison_assign(
    *,
    user,
    pair_ids: list[int],
    annotator_ids: list[int],
    batch_size: int = 0,
) -> int:
    """Assign pairs so that each is judged by exactly ``ANNOTATORS_PER_PAIR`` (three)
    distinct primary annotators (App. D.2; a protocol constant, not a choice), chosen
    round-robin among ``annotator_ids``; each annotator's pairs are numbered into batches
    of ``batch_size`` (0: one batch). Pairs already assigned keep their annotators and
    are filled up to three. Returns the number of new assignments.

    The assignment interfaces call ``adjudication.consensus.services.pairs_assign``,
    which first refuses anyone who has arbitrated one of the pairs."""
    if not has_any_role(user, [Role.ADMIN]):
        raise ComparisonError("Only an admin assigns comparison pairs.")
    annotators = list(get_user_model().objects.filter(pk__in=annotator_ids).order_by("username"))
    not_annotators = [
        a.username for a in annotators if not has_any_role(a, [Role.PRIMARY_ANNOTATOR])
    ]
    if not_annotators:
        raise ComparisonError(f"Not primary annotators: {', '.join(not_annotators)}.")
    if len(annotators) < ANNOTATORS_PER_PAIR:
        names = ", ".join(a.username for a in annotators) or "none"
        raise ComparisonError(
            f"Every pair is judged by {ANNOTATORS_PER_PAIR} distinct primary annotators "
            f"(seed 000 App. D.2); choose at least {ANNOTATORS_PER_PAIR} (chosen: {names})."
        )
    pairs = list(
        ComparisonPair.objects.select_for_update(of=("self",))
        .filter(pk__in=pair_ids, status=ComparisonPair.Status.ANNOTATING)
        .order_by("character__key", "scenario__scenario_id")
    )
    waiting = waiting_flags(pairs)
    if waiting:
        raise ComparisonError(
            [
                f"{pair} waits for leak flag {', '.join(str(f) for f in waiting[pair.pk])}: "
                "clean the candidate or accept the flag before assigning the pair."
                for pair in pairs
                if pair.pk in waiting
            ]
        )
    taken: dict[int, set[int]] = {}
    for pair_id, annotator_id in PairAssignment.objects.filter(pair__in=pairs).values_list(
        "pair_id", "annotator_id"
    ):
        taken.setdefault(pair_id, set()).add(annotator_id)
    loads = dict(
        PairAssignment.objects.filter(annotator__in=annotators)
        .values_list("annotator")
        .annotate(n=Count("pk"))
    )
    created = 0
    plan = _assignment_plan(pairs, annotators, taken)
    for pair in pairs:
        for annotator in plan[pair.pk]:
            load = loads.get(annotator.pk, 0)
            PairAssignment.objects.create(
                pair=pair,
                annotator=annotator,
                permutation=_shuffled_permutation(pair),
                batch=load // batch_size + 1 if batch_size else 1,
                assigned_by=user,
            )
            loads[annotator.pk] = load + 1
            created += 1
    return created


def _own_assignment(*, public_id, annotator, lock: bool = False) -> PairAssignment:
    rows = PairAssignment.objects.select_related("pair")
    if lock:
        rows = rows.select_for_update(of=("self",))
    assignment = rows.filter(public_id=public_id, annotator=annotator).first()
    if assignment is None:
        raise ComparisonNotFound("This comparison is not assigned to you.")
    return assignment


@transaction.atomic
def comparison_draft_save(*, public_id, annotator, data: dict) -> ComparisonDraft:
    """Keep the form's input as typed (letters, never candidate ids)."""
    assignment = _own_assignment(public_id=public_id, annotator=annotator, lock=True)
    if not assignment.pair.is_open:
        raise ComparisonError("This pair has been routed; your judgment can no longer change.")
    # A draft keeps the text rules too: over the limit or with a control character, it
    # is refused whole (nothing saved), never cut or stripped.
    clean = check_judgment_texts({f: str(data[f]) for f in JUDGMENT_FIELDS if f in data})
    draft, _ = ComparisonDraft.objects.update_or_create(
        assignment=assignment, defaults={"data": clean}
    )
    return draft


def check_judgment_texts(content: dict) -> dict:
    """The text rules on the judgment's fields (issue #24): each within its limit and free
    of control characters, or a ``ComparisonError`` naming the field and the limit."""
    return check_texts(
        content, JUDGMENT_TEXT_LIMITS, labels=JUDGMENT_TEXT_LABELS, error=ComparisonError
    )


def check_judgment(content: dict) -> dict:
    """The guideline's required output (App. D.2), checked; returns the cleaned content."""
    content = {f: (content.get(f) or "").strip() for f in JUDGMENT_FIELDS}
    problems = []
    if content["suitability"] not in Suitability.values:
        problems.append("Step 1: decide whether the pair is suitable or flag it for arbitration.")
    elif content["suitability"] == Suitability.FLAGGED and not content["suitability_reason"]:
        problems.append("Step 1: provide a brief reason for every flag (suitability_reason).")
    if content["selected_letter"] not in COMPARISON_LETTERS:
        problems.append("Step 3: select the strongest candidate (A, B, or C).")
    if content["rating"] not in Rating.values:
        problems.append(
            "Step 3: rate the selected candidate acceptable as-is or acceptable with "
            "partial revisions."
        )
    if not content["selection_rationale"]:
        problems.append("Step 3: give a brief rationale for your candidate selection.")
    if content["rating"] == Rating.PARTIAL and not content["revision_guidance"]:
        problems.append(
            "Step 3: partial revisions require concrete written guidance identifying what "
            "should be added, removed, or replaced."
        )
    if problems:
        raise ComparisonError(problems)
    for f in CRITERIA_FIELDS:
        content[f] = content[f] or ""
    return content


@dataclass(frozen=True)
class Submission:
    """What :func:`comparison_submit` recorded, and what consensus routing needs."""

    judgment: ComparisonJudgment
    # The judged pair, row-locked until the submit's transaction ends.
    pair: ComparisonPair
    # Three distinct annotators have now submitted: the pair is ready to be routed.
    complete: bool


def judged_by_all(pair: ComparisonPair) -> bool:
    """App. D.2: a pair is complete once every assignee, and at least
    ``ANNOTATORS_PER_PAIR`` (three) distinct annotators, have submitted; a pair with
    fewer assignees never is (one or two "as-is" votes are not a unanimous adoption)."""
    assigned = pair.assignments.count()
    judged = ComparisonJudgment.objects.filter(assignment__pair=pair).count()
    return judged >= max(assigned, ANNOTATORS_PER_PAIR)


@transaction.atomic
def comparison_submit(*, public_id, annotator, content: dict) -> Submission:
    """Submit (or revise, until the pair is routed) the annotator's judgment.

    Idempotent: the assignment row is locked and the judgment is one-to-one with it, so
    a double click, a second tab or a retry yields one judgment; a resubmission of the
    same content adds no version. The pair row stays locked until the caller's
    transaction ends, so the caller can route a complete pair
    (``adjudication.arbitration.services.consensus_route``) before anyone else acts on it.
    """
    check_judgment_texts({f: content[f] for f in JUDGMENT_FIELDS if content.get(f) is not None})
    content = check_judgment(content)
    assignment = _own_assignment(public_id=public_id, annotator=annotator, lock=True)
    pair = ComparisonPair.objects.select_for_update(of=("self",)).get(pk=assignment.pair_id)
    if not pair.is_open:
        raise ComparisonError("This pair has been routed; your judgment can no longer change.")
    if waiting_flags([pair]):
        # Re-screening flagged a candidate after assignment: the pair waits (issue 22).
        raise ComparisonError(
            "This pair is on hold while the admin checks a candidate's text; your draft is "
            "kept. Submit again once the pair is back in your queue."
        )
    candidate_id = canonical_candidate(assignment=assignment, letter=content["selected_letter"])
    now = timezone.now()
    judgment = ComparisonJudgment.objects.filter(assignment=assignment).first()
    if judgment is None:
        try:
            with transaction.atomic():
                judgment = ComparisonJudgment.objects.create(
                    assignment=assignment,
                    selected_candidate_id=candidate_id,
                    submitted_at=now,
                    **content,
                )
        except IntegrityError:  # a concurrent submit won the race: this one is a retry
            judgment = ComparisonJudgment.objects.get(assignment=assignment)
            return Submission(judgment=judgment, pair=pair, complete=False)
    elif judgment.content() == content:
        return Submission(judgment=judgment, pair=pair, complete=judged_by_all(pair))
    else:
        for f, value in content.items():
            setattr(judgment, f, value)
        judgment.selected_candidate_id = candidate_id
        judgment.version += 1
        judgment.submitted_at = now
        judgment.save()
    ComparisonJudgmentVersion.objects.create(
        judgment=judgment,
        number=judgment.version,
        selected_candidate_id=candidate_id,
        **content,
    )
    ComparisonDraft.objects.filter(assignment=assignment).delete()
    return Submission(judgment=judgment, pair=pair, complete=judged_by_all(pair))
