"""Writes of scenario review (seed 000 §2.3, App. C.2): pass-1 joint screening and
consensus revision, pass-2 independent DIAMONDS ratings, joint re-assessment (one
reviewer proposes, the other confirms), and scenarios entered by hand. Every transition
is one keyword-only, atomic function that checks the stage it starts from, raises a
``ReviewError`` whose message says what to do, and appends a ``ReviewEvent``.
Blueprints and their LLM expansion: ``blueprints``.
"""

import re

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.corpus.models import SCENARIO_CONTENT_FIELDS, SCENARIO_CONTENT_LIMITS, Scenario
from annotation.profile_review.models import ReviewError
from annotation.profile_review.services import record_event, require_role
from annotation.scenario_review.models import (
    DIAMONDS_FIELDS,
    DIAMONDS_LABELS,
    DIAMONDS_MAX,
    DIAMONDS_MIN,
    DiamondsRating,
    FinalDiamondsRating,
    ReassessmentProposal,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
)
from core.diamonds import final_rating_rule
from core.life_stages import BY_KEY as LIFE_STAGES
from core.protocol import DIAMONDS_REASSESSMENT_THRESHOLD, SCENARIO_REVIEWERS
from core.roles import Role
from core.text_rules import NOTE, check_text, text_problem

__all__ = ["ReviewError", "final_rating_rule"]


def _scenario_review(*, scenario_id: str, actor) -> ScenarioReview:
    """The scenario's review (row-locked), opened on a first version taken from the
    ``Scenario`` row when the scenario came in without one (an import)."""
    require_role(actor, Role.SCENARIO_REVIEWER, "review scenarios")
    scenario = Scenario.objects.filter(scenario_id=scenario_id).first()
    if scenario is None:
        raise ReviewError(f"There is no scenario {scenario_id}.")
    review = (
        ScenarioReview.objects.select_for_update()
        .select_related("version")
        .filter(scenario=scenario)
        .first()
    )
    if review is not None:
        return review
    version = scenario.versions.order_by("-number").first() or ScenarioVersion.objects.create(
        scenario=scenario,
        number=1,
        origin=ScenarioVersion.Origin.IMPORT,
        note=scenario.source,
        **scenario.content(),
    )
    try:
        with transaction.atomic():
            return ScenarioReview.objects.create(scenario=scenario, version=version)
    except IntegrityError:
        return ScenarioReview.objects.select_for_update().get(scenario=scenario)


def _check_stage(review: ScenarioReview, *stages: str, doing: str) -> None:
    if review.stage not in stages:
        raise ReviewError(
            f"{review.scenario.scenario_id} is at “{review.get_stage_display()}”; "
            f"it cannot {doing} now."
        )


def _adopt(review: ScenarioReview) -> None:
    """Make the approved version the scenario's current content."""
    scenario = Scenario.objects.select_for_update().get(pk=review.scenario_id)
    content = review.version.content()
    if any(getattr(scenario, f) != v for f, v in content.items()):
        for f, v in content.items():
            setattr(scenario, f, v)
        scenario.save(update_fields=list(content))


# --- Pass 1: joint screening and consensus revision ---------------------------------------


@transaction.atomic
def scenario_screen(
    *,
    scenario_id: str,
    reviewer,
    decision: str,
    logically_consistent: bool = False,
    psychologically_plausible: bool = False,
    character_agnostic: bool = False,
    note: str = "",
) -> ScreeningDecision:
    """Record one reviewer's pass-1 decision on the version under screening. A flag sends
    it to revision; approval by both reviewers sends it to pass 2."""
    check_text(note, label="Note", limit=NOTE, error=ReviewError)
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.SCREENING, doing="be screened")
    if ScreeningDecision.objects.filter(version=review.version, reviewer=reviewer).exists():
        raise ReviewError(f"You already screened {review.version}.")
    if decision == ScreeningDecision.Decision.APPROVE:
        if not (logically_consistent and psychologically_plausible and character_agnostic):
            raise ReviewError(
                "Approve only when all three checks hold (logically consistent, "
                "psychologically plausible, character-agnostic); otherwise flag it."
            )
    elif decision == ScreeningDecision.Decision.FLAG:
        if not note.strip():
            raise ReviewError("Say what needs revising when flagging a scenario.")
    else:
        raise ReviewError("Approve or flag the scenario.")
    screening = ScreeningDecision.objects.create(
        review=review,
        version=review.version,
        reviewer=reviewer,
        decision=decision,
        logically_consistent=logically_consistent,
        psychologically_plausible=psychologically_plausible,
        character_agnostic=character_agnostic,
        note=note.strip(),
    )
    if decision == ScreeningDecision.Decision.FLAG:
        review.stage = ScenarioReview.Stage.REVISION
    else:
        approvals = ScreeningDecision.objects.filter(
            version=review.version, decision=ScreeningDecision.Decision.APPROVE
        ).count()
        if approvals >= SCENARIO_REVIEWERS:
            review.stage = ScenarioReview.Stage.RATING
            review.screened_at = timezone.now()
            _adopt(review)
    review.save(update_fields=["stage", "screened_at"])
    record_event(
        actor=reviewer,
        action="scenario_screen",
        scenario=review.scenario,
        version=review.version.number,
        decision=decision,
        stage=review.stage,
    )
    return screening


def clean_content(content: dict) -> dict:
    """The scenario content fields, stripped and checked (age inside the life-stage bin);
    a ``ReviewError`` lists every problem."""
    problems = []
    clean = {}
    for field in SCENARIO_CONTENT_FIELDS:
        value = content.get(field)
        if field == "age":
            try:
                clean[field] = int(value)
            except (TypeError, ValueError):
                problems.append("Age must be a whole number.")
            continue
        clean[field] = str(value if value is not None else "").strip()
        label = field.replace("_", " ").capitalize()
        limit = SCENARIO_CONTENT_LIMITS[field]
        if problem := text_problem(clean[field], label=label, limit=limit):
            problems.append(problem)
        elif not clean[field] and field not in ("diamonds_dimension", "action_required"):
            problems.append(f"{field.replace('_', ' ').capitalize()} cannot be empty.")
    stage = LIFE_STAGES.get(clean.get("stage"))
    if stage is None:
        problems.append("Choose one of the eight life-stage bins.")
    elif "age" in clean and not stage.contains(clean["age"]):
        problems.append(
            f"Age {clean['age']} is outside {stage.label} ({stage.first_age}-{stage.last_age})."
        )
    if problems:
        raise ReviewError(problems)
    return clean


@transaction.atomic
def scenario_revise(
    *, scenario_id: str, reviewer, content: dict, note: str = ""
) -> ScenarioVersion:
    """Propose the consensus revision of a flagged scenario; both reviewers then screen
    the new version (the proposer's approval is not implied)."""
    check_text(note, label="What this version changes, and why", limit=NOTE, error=ReviewError)
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.REVISION, doing="be revised")
    clean = clean_content(content)
    if clean == review.version.content():
        raise ReviewError("The revision changes nothing: edit the passages the flag names.")
    if not note.strip():
        raise ReviewError("Say what the revision changes and how it answers the flag.")
    previous = review.version
    version = ScenarioVersion.objects.create(
        scenario=review.scenario,
        number=previous.number + 1,
        origin=ScenarioVersion.Origin.REVISION,
        note=note.strip(),
        created_by=reviewer,
        **clean,
    )
    review.version = version
    review.stage = ScenarioReview.Stage.SCREENING
    review.save(update_fields=["version", "stage"])
    record_event(
        actor=reviewer,
        action="scenario_revise",
        scenario=review.scenario,
        version=version.number,
        fields=[f for f in SCENARIO_CONTENT_FIELDS if clean[f] != getattr(previous, f)],
    )
    return version


# --- Pass 2: independent ratings and joint re-assessment ----------------------------------


def disagreements(first: dict[str, int], second: dict[str, int]) -> list[str]:
    return [
        f for f in DIAMONDS_FIELDS if abs(first[f] - second[f]) > DIAMONDS_REASSESSMENT_THRESHOLD
    ]


def _check_scores(scores: dict, fields) -> dict[str, int]:
    clean, problems = {}, []
    for f in fields:
        try:
            value = int(scores.get(f))
        except (TypeError, ValueError):
            problems.append(f"Rate {DIAMONDS_LABELS[f]} on the 1-7 scale.")
            continue
        if not DIAMONDS_MIN <= value <= DIAMONDS_MAX:
            problems.append(f"{DIAMONDS_LABELS[f]} must be between 1 and 7; got {value}.")
        clean[f] = value
    if problems:
        raise ReviewError(problems)
    return clean


@transaction.atomic
def scenario_rate(*, scenario_id: str, reviewer, scores: dict, note: str = "") -> DiamondsRating:
    """Submit one reviewer's independent pass-2 rating on all eight dimensions."""
    check_text(note, label="Note", limit=NOTE, error=ReviewError)
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.RATING, doing="be rated")
    if review.ratings.filter(reviewer=reviewer).exists():
        raise ReviewError(
            f"You already rated {review.scenario.scenario_id}; a rating cannot change."
        )
    clean = _check_scores(scores, DIAMONDS_FIELDS)
    rating = DiamondsRating.objects.create(
        review=review, version=review.version, reviewer=reviewer, note=note.strip(), **clean
    )
    ratings = list(review.ratings.order_by("pk"))
    if len(ratings) >= SCENARIO_REVIEWERS:
        first, second = ratings[0].scores(), ratings[1].scores()
        split = disagreements(first, second)
        if split:
            review.stage = ScenarioReview.Stage.REASSESSMENT
        else:
            FinalDiamondsRating.objects.create(
                review=review,
                recorded_by=reviewer,
                reassessed=[],
                **{
                    f: final_rating_rule(
                        first[f], second[f], scenario_id=review.scenario.scenario_id, dimension=f
                    )
                    for f in DIAMONDS_FIELDS
                },
            )
            review.stage = ScenarioReview.Stage.COMPLETE
            review.completed_at = timezone.now()
        review.save(update_fields=["stage", "completed_at"])
    record_event(
        actor=reviewer,
        action="scenario_rate",
        scenario=review.scenario,
        version=review.version.number,
        stage=review.stage,
    )
    return rating


def _reassessment(*, scenario_id: str, reviewer, doing: str):
    """The review under re-assessment (row-locked), its two ratings' scores and the
    dimensions more than one point apart; only the two raters take part."""
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.REASSESSMENT, doing=doing)
    ratings = list(review.ratings.select_related("reviewer").order_by("pk"))
    if reviewer.pk not in {r.reviewer_id for r in ratings}:
        raise ReviewError(
            "Only the two reviewers who rated the scenario take part in its joint re-assessment."
        )
    first, second = ratings[0].scores(), ratings[1].scores()
    other = next(r.reviewer for r in ratings if r.reviewer_id != reviewer.pk)
    return review, first, second, disagreements(first, second), other


def _check_agreed(agreed: dict, split: list[str]) -> dict[str, int]:
    extra = set(k for k, v in agreed.items() if v not in (None, "")) - set(split)
    if extra:
        raise ReviewError(
            "Only the dimensions more than one point apart are re-assessed; not: "
            + ", ".join(DIAMONDS_LABELS.get(f, f) for f in sorted(extra))
            + "."
        )
    return _check_scores(agreed, split)


def _describe(values: dict) -> str:
    return ", ".join(f"{DIAMONDS_LABELS[f]} {v}" for f, v in values.items())


def current_proposal(review: ScenarioReview) -> ReassessmentProposal | None:
    """The latest proposal of a review's joint re-assessment: the one to confirm."""
    return review.reassessment_proposals.select_related("proposed_by").order_by("-pk").first()


@transaction.atomic
def scenario_reassess_propose(
    *, scenario_id: str, reviewer, agreed: dict, note: str = ""
) -> ReassessmentProposal:
    """Propose the final values of the dimensions more than one point apart (App. C.2
    joint re-assessment). Nothing is recorded as final: the other reviewer confirms the
    values (``scenario_reassess_confirm``) or counter-proposes, and a counter-proposal
    waits for the first reviewer's confirmation. A new proposal replaces the current one,
    whoever made it."""
    check_text(note, label="How the reviewers agreed", limit=NOTE, error=ReviewError)
    review, _, _, split, other = _reassessment(
        scenario_id=scenario_id, reviewer=reviewer, doing="be re-assessed"
    )
    clean = _check_agreed(agreed, split)
    current = current_proposal(review)
    if current is not None and current.values == clean:
        if current.proposed_by_id == reviewer.pk:
            raise ReviewError(
                f"You already proposed {_describe(clean)}; it waits for "
                f"{other.get_username()} to confirm."
            )
        raise ReviewError(
            f"{current.proposed_by.get_username()} already proposed {_describe(clean)}: "
            "confirm their proposal instead."
        )
    proposal = ReassessmentProposal.objects.create(
        review=review, proposed_by=reviewer, values=clean, note=note.strip()
    )
    record_event(
        actor=reviewer,
        action="scenario_reassess_propose",
        scenario=review.scenario,
        proposal=proposal.pk,
        values=clean,
        replaces=current.pk if current else None,
    )
    return proposal


@transaction.atomic
def scenario_reassess_confirm(
    *, scenario_id: str, reviewer, proposal_id: int, agreed: dict, note: str = ""
) -> FinalDiamondsRating:
    """Confirm the current proposal of the joint re-assessment: the reviewer who did not
    propose it names the proposal and the values they read, and both must still be the
    current ones (a proposal replaced meanwhile is refused). Records the final rating:
    the confirmed values on the re-assessed dimensions, ``final_rating_rule`` elsewhere."""
    check_text(note, label="How the reviewers agreed", limit=NOTE, error=ReviewError)
    review, first, second, split, other = _reassessment(
        scenario_id=scenario_id, reviewer=reviewer, doing="be re-assessed"
    )
    current = current_proposal(review)
    if current is None:
        raise ReviewError("Nothing to confirm yet: propose the final ratings first.")
    clean = _check_agreed(agreed, split)
    if current.pk != proposal_id or current.values != clean:
        raise ReviewError(
            "The values you confirmed are no longer the current proposal: "
            f"{current.proposed_by.get_username()} now proposes {_describe(current.values)}. "
            "Read it, then confirm it or counter-propose."
        )
    if current.proposed_by_id == reviewer.pk:
        raise ReviewError(
            f"You proposed these values; {other.get_username()} confirms them "
            "(or counter-proposes)."
        )
    final = FinalDiamondsRating.objects.create(
        review=review,
        recorded_by=reviewer,
        proposal=current,
        reassessed=split,
        note="\n".join(n for n in (current.note, note.strip()) if n),
        **{
            f: current.values.get(f)
            or final_rating_rule(
                first[f], second[f], scenario_id=review.scenario.scenario_id, dimension=f
            )
            for f in DIAMONDS_FIELDS
        },
    )
    review.stage = ScenarioReview.Stage.COMPLETE
    review.completed_at = timezone.now()
    review.save(update_fields=["stage", "completed_at"])
    record_event(
        actor=reviewer,
        action="scenario_reassess_confirm",
        scenario=review.scenario,
        proposal=current.pk,
        proposed_by=current.proposed_by.get_username(),
        agreed=current.values,
        before={f: [first[f], second[f]] for f in split},
    )
    return final


# --- Manual entry ----------------------------------------------------------------------


def _next_scenario_id(stage: str) -> str:
    prefix = f"SCN_{stage.upper()}_"
    numbers = [
        int(m.group(1))
        for sid in Scenario.objects.filter(scenario_id__startswith=prefix).values_list(
            "scenario_id", flat=True
        )
        if (m := re.fullmatch(rf"{re.escape(prefix)}(\d+)", sid))
    ]
    return f"{prefix}{max(numbers, default=0) + 1}"


def create_scenario(*, content: dict, origin: str, user, note: str, source: str) -> Scenario:
    """A new scenario with a programmatic id, its version 1 and a review awaiting pass 1."""
    scenario = Scenario.objects.create(
        scenario_id=_next_scenario_id(content["stage"]), source=source, **content
    )
    version = ScenarioVersion.objects.create(
        scenario=scenario, number=1, origin=origin, created_by=user, note=note, **content
    )
    ScenarioReview.objects.create(scenario=scenario, version=version)
    return scenario


@transaction.atomic
def scenario_create_manual(*, user, content: dict, note: str = "") -> Scenario:
    """A scenario entered by hand; its first version awaits pass 1."""
    require_role(user, Role.SCENARIO_REVIEWER, "enter scenarios")
    check_text(note, label="What this version changes, and why", limit=NOTE, error=ReviewError)
    clean = clean_content(content)
    scenario = create_scenario(
        content=clean,
        origin=ScenarioVersion.Origin.MANUAL,
        user=user,
        note=note.strip(),
        source=f"entered by {user.get_username()}",
    )
    record_event(actor=user, action="scenario_create_manual", scenario=scenario)
    return scenario
