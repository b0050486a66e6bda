"""Writes of the construction-stage reviews (issue 6). Every transition is one
keyword-only, atomic function that checks the state it starts from and raises a
``ReviewError`` whose message says what to do; each one appends a ``ReviewEvent``.
"""

import json
import logging
import math
import re

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.corpus.life_stages import BY_KEY as LIFE_STAGES
from annotation.corpus.models import CORE_PATTERN_COUNT, Character, ProfileVersion, Scenario
from annotation.profile_review.models import (
    BIG_FIVE_FIELDS,
    BIG_FIVE_LETTER_FIELD,
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_FIELDS,
    DIAMONDS_LABELS,
    DIAMONDS_MAX,
    DIAMONDS_MID,
    DIAMONDS_MIN,
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_LABELS,
    PROFILE_REVIEWERS_REQUIRED,
    REASSESSMENT_THRESHOLD,
    SCENARIO_CONTENT_FIELDS,
    SCENARIO_INTENSITIES,
    SCENARIO_REVIEWERS_REQUIRED,
    ChangeRequest,
    DiamondsRating,
    FinalDiamondsRating,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    Recommendation,
    ReviewError,
    ReviewEvent,
    ScenarioBlueprint,
    ScenarioReview,
    ScenarioVersion,
    ScreeningDecision,
    profile_field_text,
)
from heartbench_site.base.roles import Role, has_any_role
from heartbench_site.base.text_diff import passage_in, word_diff

logger = logging.getLogger(__name__)

__all__ = ["ReviewError"]

NEUTRAL_SCORE = 0.5  # App. B.2: CHAR_11's fixed all-.50 vector
EDITABLE_PROFILE_FIELDS = (
    "construction_label",
    "occupation",
    *BIG_FIVE_FIELDS,
    "description",
    "self_value_logic",
    "core_patterns",
)
EDIT_FIELD_LABELS = {
    "construction_label": "Construction label",
    "occupation": "Occupation",
    "openness": "Openness (O)",
    "conscientiousness": "Conscientiousness (C)",
    "extraversion": "Extraversion (E)",
    "agreeableness": "Agreeableness (A)",
    "neuroticism": "Neuroticism (N)",
    "description": "Description",
    "self_value_logic": "Self-value logic",
    **{f"core_pattern_{i}": f"Core pattern {i}" for i in range(1, CORE_PATTERN_COUNT + 1)},
}


def _event(*, actor, action: str, character=None, scenario=None, **details) -> None:
    ReviewEvent.objects.create(
        actor=actor, action=action, character=character, scenario=scenario, details=details
    )


def _require_role(user, role: Role, doing: str) -> None:
    if not has_any_role(user, [role]):
        raise ReviewError(f"Only a {role.label.lower()} can {doing}.")


# --- Profile review: the annotators -------------------------------------------------------


def _latest_version(character: Character) -> ProfileVersion | None:
    return character.versions.order_by("-number").first()


def _open_case(*, character_key: str, create: bool) -> ProfileReviewCase:
    """The character's open case (row-locked); with ``create``, open one on its latest
    draft version."""
    character = Character.objects.filter(key=character_key).first()
    if character is None:
        raise ReviewError(f"There is no character {character_key}.")
    case = (
        ProfileReviewCase.objects.select_for_update()
        .select_related("reviewed_version", "character")
        .exclude(status=ProfileReviewCase.Status.FROZEN)
        .filter(character=character)
        .first()
    )
    if case is not None or not create:
        if case is None:
            raise ReviewError(f"{character_key} has no profile under review.")
        return case
    latest = _latest_version(character)
    if latest is None:
        raise ReviewError(f"{character_key} has no profile version to review yet.")
    if latest.is_frozen:
        raise ReviewError(f"{latest} is frozen: there is nothing left to review.")
    try:
        with transaction.atomic():
            return ProfileReviewCase.objects.create(character=character, reviewed_version=latest)
    except IntegrityError:
        # Another reviewer opened it a moment ago.
        return _open_case(character_key=character_key, create=False)


def _own_review(*, case: ProfileReviewCase, reviewer) -> ProfileReview:
    review, _ = ProfileReview.objects.select_for_update().get_or_create(
        case=case, reviewer=reviewer
    )
    if review.is_submitted:
        raise ReviewError(
            f"You submitted your review of {case.reviewed_version} on "
            f"{review.submitted_at:%Y-%m-%d %H:%M}; a submitted review cannot change."
        )
    return review


def _check_reviewing(case: ProfileReviewCase) -> None:
    if case.status != ProfileReviewCase.Status.REVIEWING:
        raise ReviewError(
            f"The review of {case.reviewed_version} is closed: the senior expert is "
            "adjudicating it."
        )


@transaction.atomic
def change_request_add(
    *,
    character_key: str,
    reviewer,
    field: str,
    passage: str,
    concern: str,
    suggested_correction: str,
) -> ChangeRequest:
    """Add a field-level change request to the reviewer's (draft) review."""
    _require_role(reviewer, Role.PRIMARY_ANNOTATOR, "review profiles")
    case = _open_case(character_key=character_key, create=True)
    _check_reviewing(case)
    if field not in PROFILE_FIELD_LABELS:
        raise ReviewError(f"{field!r} is not a field of the profile.")
    text = profile_field_text(case.reviewed_version, field)
    problems = []
    if not passage_in(passage, text):
        problems.append(
            f"The passage “{passage.strip()[:80]}” does not occur in "
            f"{PROFILE_FIELD_LABELS[field]}; select or copy the text of that field."
        )
    if not concern.strip():
        problems.append("Explain the concern.")
    if not suggested_correction.strip():
        problems.append("Suggest a targeted correction.")
    if problems:
        raise ReviewError(problems)
    review = _own_review(case=case, reviewer=reviewer)
    request = ChangeRequest.objects.create(
        review=review,
        field=field,
        passage=passage.strip(),
        concern=concern.strip(),
        suggested_correction=suggested_correction.strip(),
    )
    _event(
        actor=reviewer,
        action="change_request_add",
        character=case.character,
        version=case.reviewed_version.number,
        request=request.pk,
        field=field,
    )
    return request


@transaction.atomic
def change_request_withdraw(*, request_id: int, reviewer) -> None:
    request = (
        ChangeRequest.objects.select_related("review__case")
        .filter(pk=request_id, review__reviewer=reviewer)
        .first()
    )
    if request is None:
        raise ReviewError("That change request is not one of yours.")
    case = ProfileReviewCase.objects.select_for_update().get(pk=request.review.case_id)
    _check_reviewing(case)
    _own_review(case=case, reviewer=reviewer)
    _event(
        actor=reviewer,
        action="change_request_withdraw",
        character=case.character,
        request=request.pk,
        field=request.field,
    )
    request.delete()


@transaction.atomic
def profile_review_save(
    *,
    character_key: str,
    reviewer,
    recommendation: str = "",
    criteria: dict[str, str] | None = None,
    explanation: str = "",
    unresolved_concern: str = "",
    missing_information: str = "",
    submit: bool = False,
) -> ProfileReview:
    """Save the reviewer's review; with ``submit``, check it is complete and submit it.

    Once the required number of reviews is in, the case passes to the senior expert.
    """
    _require_role(reviewer, Role.PRIMARY_ANNOTATOR, "review profiles")
    case = _open_case(character_key=character_key, create=True)
    _check_reviewing(case)
    review = _own_review(case=case, reviewer=reviewer)
    criteria = criteria or {}
    unknown = set(criteria) - set(PROFILE_CRITERIA_FIELDS)
    if unknown:
        raise ReviewError(f"Unknown criteria: {', '.join(sorted(unknown))}.")
    if recommendation and recommendation not in Recommendation.values:
        raise ReviewError(f"{recommendation!r} is not a recommendation.")
    review.recommendation = recommendation
    for name in PROFILE_CRITERIA_FIELDS:
        setattr(review, name, criteria.get(name, ""))
    review.explanation = explanation.strip()
    review.unresolved_concern = unresolved_concern.strip()
    review.missing_information = missing_information.strip()
    if submit:
        problems = []
        if not recommendation:
            problems.append("Choose an overall recommendation.")
        missing = [n for n in PROFILE_CRITERIA_FIELDS if not criteria.get(n)]
        if missing:
            problems.append(
                "Judge every criterion; missing: "
                + ", ".join(n.replace("_", " ") for n in missing)
                + "."
            )
        requests = review.requests.count()
        if recommendation == Recommendation.ACCEPT and requests:
            problems.append(
                f"“Acceptable as-is” means no change is needed, but the review has {requests} "
                "change request(s): withdraw them or choose “Local revision needed”."
            )
        if recommendation == Recommendation.LOCAL_REVISION and not requests:
            problems.append(
                "A local revision needs at least one change request: name the field, the "
                "passage, the concern and a suggested correction."
            )
        if recommendation == Recommendation.FLAG and not review.explanation:
            problems.append("Explain what prevents a recommendation when flagging the profile.")
        if problems:
            raise ReviewError(problems)
        review.submitted_at = timezone.now()
    review.save()
    if submit:
        submitted = case.reviews.filter(submitted_at__isnull=False).count()
        if submitted >= PROFILE_REVIEWERS_REQUIRED:
            case.status = ProfileReviewCase.Status.ADJUDICATING
            case.save(update_fields=["status"])
        _event(
            actor=reviewer,
            action="profile_review_submit",
            character=case.character,
            version=case.reviewed_version.number,
            recommendation=recommendation,
            submitted=submitted,
        )
    return review


# --- Profile review: the senior expert ----------------------------------------------------


def _adjudicating_case(*, character_key: str, arbitrator) -> ProfileReviewCase:
    _require_role(arbitrator, Role.ARBITRATOR, "adjudicate profile reviews")
    case = _open_case(character_key=character_key, create=False)
    if case.status != ProfileReviewCase.Status.ADJUDICATING:
        submitted = case.reviews.filter(submitted_at__isnull=False).count()
        raise ReviewError(
            f"{case.reviewed_version} has {submitted} of {PROFILE_REVIEWERS_REQUIRED} reviews; "
            "adjudication opens when every reviewer has submitted."
        )
    return case


@transaction.atomic
def change_request_resolve(
    *, request_id: int, arbitrator, status: str, reason: str = ""
) -> ChangeRequest:
    """Accept or reject (with a reason) one change request."""
    request = (
        ChangeRequest.objects.select_related("review__case__character")
        .filter(pk=request_id)
        .first()
    )
    if request is None:
        raise ReviewError("There is no such change request.")
    case = _adjudicating_case(
        character_key=request.review.case.character.key, arbitrator=arbitrator
    )
    request = ChangeRequest.objects.select_for_update().get(pk=request_id)
    if request.status != ChangeRequest.Status.OPEN:
        raise ReviewError(f"That change request is already {request.get_status_display().lower()}.")
    if status not in (ChangeRequest.Status.ACCEPTED, ChangeRequest.Status.REJECTED):
        raise ReviewError("Resolve a change request by accepting or rejecting it.")
    if status == ChangeRequest.Status.REJECTED and not reason.strip():
        raise ReviewError("Give the reason for rejecting the change request.")
    request.status = status
    request.resolution_reason = reason.strip()
    request.resolved_by = arbitrator
    request.resolved_at = timezone.now()
    request.resolved_in_version = _latest_version(case.character)
    request.save()
    _event(
        actor=arbitrator,
        action="change_request_resolve",
        character=case.character,
        request=request.pk,
        status=status,
        in_version=request.resolved_in_version.number,
    )
    return request


def _is_neutral(version: ProfileVersion) -> bool:
    return all(math.isclose(getattr(version, f), NEUTRAL_SCORE) for f in BIG_FIVE_FIELDS)


def _anchor_field(version: ProfileVersion) -> str | None:
    anchor = version.trait_anchor  # "N high", "E low", "neutral (all 0.50)", "none"
    letter = anchor.split()[0] if anchor.split() else ""
    return BIG_FIVE_LETTER_FIELD.get(letter)


def profile_diff(before: ProfileVersion, after_values: dict) -> list[dict]:
    """Field-level diff of a version against new values (changed fields only)."""
    changes = []
    for field in EDITABLE_PROFILE_FIELDS:
        old, new = getattr(before, field), after_values[field]
        if field == "core_patterns":
            for i, (p_old, p_new) in enumerate(zip(old, new, strict=True), start=1):
                if p_old != p_new:
                    name = f"core_pattern_{i}"
                    changes.append(
                        {
                            "field": name,
                            "label": EDIT_FIELD_LABELS[name],
                            "before": p_old,
                            "after": p_new,
                            "ops": word_diff(p_old, p_new),
                        }
                    )
            continue
        if field in BIG_FIVE_FIELDS:
            if math.isclose(old, new):
                continue
            old_s, new_s = f"{old:.2f}", f"{new:.2f}"
        else:
            if old == new:
                continue
            old_s, new_s = old, new
        changes.append(
            {
                "field": field,
                "label": EDIT_FIELD_LABELS[field],
                "before": old_s,
                "after": new_s,
                "ops": word_diff(old_s, new_s),
            }
        )
    return changes


@transaction.atomic
def profile_edit(
    *,
    character_key: str,
    editor,
    values: dict,
    confirm_anchor_change: bool = False,
    note: str = "",
) -> ProfileEdit:
    """Apply the senior expert's field-level edits as the next profile version.

    ``values`` holds every editable field (the form posts them all); the new version
    copies the rest. Guards from App. B.3: the anchor trait's score does not change
    unless the senior confirms it, and an all-0.50 profile keeps its fixed vector.
    """
    case = _adjudicating_case(character_key=character_key, arbitrator=editor)
    current = _latest_version(case.character)
    if current.is_frozen:
        raise ReviewError(f"{current} is frozen and cannot change.")
    new = {f: values.get(f, getattr(current, f)) for f in EDITABLE_PROFILE_FIELDS}
    problems = []
    patterns = [str(p).strip() for p in (new["core_patterns"] or [])]
    if len(patterns) != CORE_PATTERN_COUNT or not all(patterns):
        problems.append(f"Give exactly {CORE_PATTERN_COUNT} non-empty core behavioral patterns.")
    new["core_patterns"] = patterns
    for field in ("construction_label", "occupation", "description", "self_value_logic"):
        new[field] = str(new[field] or "").strip()
        if not new[field]:
            problems.append(f"{EDIT_FIELD_LABELS[field]} cannot be empty.")
    for field in BIG_FIVE_FIELDS:
        try:
            new[field] = float(new[field])
        except (TypeError, ValueError):
            problems.append(f"{EDIT_FIELD_LABELS[field]} must be a number between 0 and 1.")
            continue
        if not 0.0 <= new[field] <= 1.0:
            problems.append(f"{EDIT_FIELD_LABELS[field]} must lie between 0 and 1.")
    if problems:
        raise ReviewError(problems)
    diff = profile_diff(current, new)
    if not diff:
        raise ReviewError(
            "Nothing changed: edit at least one field, or freeze the version as it is."
        )
    changed_scores = [f for f in BIG_FIVE_FIELDS if not math.isclose(getattr(current, f), new[f])]
    if changed_scores and _is_neutral(current):
        raise ReviewError(
            f"{case.character.key} is the all-0.50 neutral profile: its Big Five vector is fixed "
            "(App. B.2) and cannot be edited. Revise the prose instead."
        )
    anchor = _anchor_field(current)
    if anchor in changed_scores and not confirm_anchor_change:
        raise ReviewError(
            f"The anchor trait score ({EDIT_FIELD_LABELS[anchor]} {getattr(current, anchor):.2f}) "
            f"would change to {new[anchor]:.2f}. The guideline says not to change a trait score "
            "to accommodate problematic prose; tick “I confirm changing the anchor trait "
            "score” if the change is intended."
        )
    version = ProfileVersion.objects.create(
        character=case.character,
        number=current.number + 1,
        is_demo_standin=current.is_demo_standin,
        source=f"senior edit of v{current.number}",
        **new,
    )
    edit = ProfileEdit.objects.create(
        case=case,
        from_version=current,
        to_version=version,
        editor=editor,
        note=note.strip(),
        anchor_change_confirmed=bool(confirm_anchor_change and anchor in changed_scores),
        diff=diff,
    )
    _event(
        actor=editor,
        action="profile_edit",
        character=case.character,
        from_version=current.number,
        to_version=version.number,
        fields=[c["field"] for c in diff],
    )
    return edit


@transaction.atomic
def profile_freeze(
    *, character_key: str, arbitrator, suitability_confirmed: bool, note: str = ""
) -> ProfileVersion:
    """The final suitability check: freeze the latest version and close the case."""
    case = _adjudicating_case(character_key=character_key, arbitrator=arbitrator)
    open_requests = ChangeRequest.objects.filter(
        review__case=case, status=ChangeRequest.Status.OPEN
    ).count()
    if open_requests:
        raise ReviewError(
            f"{open_requests} change request(s) are still open: accept or reject each one "
            "before freezing."
        )
    if not suitability_confirmed:
        raise ReviewError(
            "Confirm the final suitability check: the specification is fit for memory generation."
        )
    version = ProfileVersion.objects.select_for_update().get(pk=_latest_version(case.character).pk)
    if version.is_frozen:
        raise ReviewError(f"{version} is already frozen.")
    now = timezone.now()
    version.frozen_at, version.frozen_by = now, arbitrator
    version.save(update_fields=["frozen_at", "frozen_by"])
    case.status = ProfileReviewCase.Status.FROZEN
    case.final_version = version
    case.frozen_at, case.frozen_by = now, arbitrator
    case.suitability_note = note.strip()
    case.save()
    _event(
        actor=arbitrator,
        action="profile_freeze",
        character=case.character,
        version=version.number,
        reviewed_version=case.reviewed_version.number,
    )
    return version


# --- Scenario review ----------------------------------------------------------------------


def _scenario_review(*, scenario_id: str, actor) -> ScenarioReview:
    """The scenario's review (row-locked), opened on a first version taken from the
    ``Scenario`` row when the scenario came in without one (an import)."""
    _require_role(actor, Role.SCENARIO_REVIEWER, "review scenarios")
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
        **{f: getattr(scenario, f) for f in SCENARIO_CONTENT_FIELDS},
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
        if approvals >= SCENARIO_REVIEWERS_REQUIRED:
            review.stage = ScenarioReview.Stage.RATING
            review.screened_at = timezone.now()
            _adopt(review)
    review.save(update_fields=["stage", "screened_at"])
    _event(
        actor=reviewer,
        action="scenario_screen",
        scenario=review.scenario,
        version=review.version.number,
        decision=decision,
        stage=review.stage,
    )
    return screening


def _clean_content(content: dict) -> dict:
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
        if not clean[field] and field not in ("diamonds_dimension", "action_required"):
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
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.REVISION, doing="be revised")
    clean = _clean_content(content)
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
    _event(
        actor=reviewer,
        action="scenario_revise",
        scenario=review.scenario,
        version=version.number,
        fields=[f for f in SCENARIO_CONTENT_FIELDS if clean[f] != getattr(previous, f)],
    )
    return version


def final_rating_rule(a: int, b: int) -> int:
    """Final value of a dimension the two ratings put at most one point apart.

    Seed 000 App. C.2 re-assesses only differences above one point and does not say how
    a one-point difference resolves; here it resolves to the rating nearer the scale's
    midpoint (4, "moderately present"), the more conservative of the two claims.
    """
    if a == b:
        return a
    return min((a, b), key=lambda r: abs(r - DIAMONDS_MID))


def disagreements(first: dict[str, int], second: dict[str, int]) -> list[str]:
    return [f for f in DIAMONDS_FIELDS if abs(first[f] - second[f]) > REASSESSMENT_THRESHOLD]


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
    if len(ratings) >= SCENARIO_REVIEWERS_REQUIRED:
        first, second = ratings[0].scores(), ratings[1].scores()
        split = disagreements(first, second)
        if split:
            review.stage = ScenarioReview.Stage.REASSESSMENT
        else:
            FinalDiamondsRating.objects.create(
                review=review,
                recorded_by=reviewer,
                reassessed=[],
                **{f: final_rating_rule(first[f], second[f]) for f in DIAMONDS_FIELDS},
            )
            review.stage = ScenarioReview.Stage.COMPLETE
            review.completed_at = timezone.now()
        review.save(update_fields=["stage", "completed_at"])
    _event(
        actor=reviewer,
        action="scenario_rate",
        scenario=review.scenario,
        version=review.version.number,
        stage=review.stage,
    )
    return rating


@transaction.atomic
def scenario_reassess(
    *, scenario_id: str, reviewer, agreed: dict, note: str = ""
) -> FinalDiamondsRating:
    """Record the jointly agreed final ratings of the dimensions that were more than one
    point apart; the other dimensions follow ``final_rating_rule``."""
    review = _scenario_review(scenario_id=scenario_id, actor=reviewer)
    _check_stage(review, ScenarioReview.Stage.REASSESSMENT, doing="be re-assessed")
    ratings = list(review.ratings.order_by("pk"))
    if reviewer.pk not in {r.reviewer_id for r in ratings}:
        raise ReviewError("Only the two reviewers who rated the scenario record the re-assessment.")
    first, second = ratings[0].scores(), ratings[1].scores()
    split = disagreements(first, second)
    extra = set(k for k, v in agreed.items() if v not in (None, "")) - set(split)
    if extra:
        raise ReviewError(
            "Only the dimensions more than one point apart are re-assessed; not: "
            + ", ".join(DIAMONDS_LABELS.get(f, f) for f in sorted(extra))
            + "."
        )
    clean = _check_scores(agreed, split)
    final = FinalDiamondsRating.objects.create(
        review=review,
        recorded_by=reviewer,
        reassessed=split,
        note=note.strip(),
        **{f: clean.get(f) or final_rating_rule(first[f], second[f]) for f in DIAMONDS_FIELDS},
    )
    review.stage = ScenarioReview.Stage.COMPLETE
    review.completed_at = timezone.now()
    review.save(update_fields=["stage", "completed_at"])
    _event(
        actor=reviewer,
        action="scenario_reassess",
        scenario=review.scenario,
        agreed=clean,
        before={f: [first[f], second[f]] for f in split},
    )
    return final


# --- Blueprints and manual entry ----------------------------------------------------------


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


def _create_scenario(*, content: dict, origin: str, user, note: str, source: str) -> Scenario:
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
    _require_role(user, Role.SCENARIO_REVIEWER, "enter scenarios")
    clean = _clean_content(content)
    scenario = _create_scenario(
        content=clean,
        origin=ScenarioVersion.Origin.MANUAL,
        user=user,
        note=note.strip(),
        source=f"entered by {user.get_username()}",
    )
    _event(actor=user, action="scenario_create_manual", scenario=scenario)
    return scenario


@transaction.atomic
def blueprint_create(
    *, user, title: str, summary: str, stage: str, diamonds_dimension: str
) -> ScenarioBlueprint:
    """Store an expert blueprint; the caller queues its expansion on commit."""
    _require_role(user, Role.SCENARIO_REVIEWER, "draft scenario blueprints")
    problems = []
    if not title.strip():
        problems.append("Give the blueprint a title.")
    if len(summary.split()) < 10:
        problems.append("Write a summary of at least ten words that establishes the core tension.")
    if stage not in LIFE_STAGES:
        problems.append("Choose one of the eight life-stage bins.")
    if diamonds_dimension not in dict(DIAMONDS_DIMENSION_CHOICES):
        problems.append("Choose the blueprint's DIAMONDS dimension.")
    if problems:
        raise ReviewError(problems)
    blueprint = ScenarioBlueprint.objects.create(
        title=title.strip(),
        summary=summary.strip(),
        stage=stage,
        diamonds_dimension=diamonds_dimension,
        created_by=user,
    )
    ReviewEvent.objects.create(
        actor=user, action="blueprint_create", details={"blueprint": blueprint.pk}
    )
    return blueprint


@transaction.atomic
def blueprint_retry(*, blueprint_id: int, user) -> ScenarioBlueprint:
    _require_role(user, Role.SCENARIO_REVIEWER, "retry a blueprint's expansion")
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.FAILED:
        raise ReviewError("Only a failed expansion can be retried.")
    blueprint.status, blueprint.error = ScenarioBlueprint.Status.PENDING, ""
    blueprint.save(update_fields=["status", "error"])
    return blueprint


# App. L.4, abridged: the scenario-facing fields and the character-agnostic principles.
EXPANSION_SYSTEM_PROMPT = """You are a psychological-scenario design expert. Your task is to \
expand a short scenario sketch into a complete, high-quality scenario JSON object.
Fields: name (English scenario name); category (two short labels separated by " / "); \
intensity (Low / Medium / High / Very High / Extreme); age (the age of the person facing the \
scenario, inside the life-stage bin); description_for_agent (one sentence summarizing the \
scenario without revealing concrete details); setting (location, time, and 2-3 atmosphere \
adjectives); context_text (150-300 word background narrative in the second person "you"); \
trigger_event (sender: a concrete role; message_content: 100-200 words of dialogue with \
parenthetical action descriptions, colloquial and emotionally charged; action_required: 1-2 \
sentences specifying the decision the character must make right now).
Key principles: 1. Character-neutral: the scenario must not presuppose any personality. \
2. No identity anchors for "you": never write "you are X years old", "you have worked as Y \
for Z years", "you are a W", "you have an N-year-old child"; the scenario provides only the \
objective situation and pressure. 3. Concrete, not abstract: specific places, times, named \
secondary characters, sensory detail. 4. context_text uses second person "you". 5. The \
trigger event must create urgency. 6. Tightly aligned with the DIAMONDS dimension. \
7. Age-appropriate for the developmental stage."""

EXPANSION_USER_TEMPLATE = """\
Life-stage bin: {stage_label} ({age_range}; ages {first_age}-{last_age})
Dominant DIAMONDS dimension: {dimension}
Summary title: {title}
Summary: {summary}

Expand this summary into the full JSON object."""


def expansion_schema(stage_key: str) -> dict:
    stage = LIFE_STAGES[stage_key]
    text = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "required": [
            "name",
            "category",
            "intensity",
            "age",
            "description_for_agent",
            "setting",
            "context_text",
            "trigger_event",
        ],
        "properties": {
            "name": text,
            "category": text,
            "intensity": {"type": "string", "enum": list(SCENARIO_INTENSITIES)},
            "age": {"type": "integer", "minimum": stage.first_age, "maximum": stage.last_age},
            "description_for_agent": text,
            "setting": {
                "type": "object",
                "required": ["location", "time", "atmosphere"],
                "properties": {"location": text, "time": text, "atmosphere": text},
            },
            "context_text": text,
            "trigger_event": {
                "type": "object",
                "required": ["sender", "message_content", "action_required"],
                "properties": {
                    "sender": text,
                    "message_content": text,
                    "action_required": text,
                },
            },
        },
    }


def expansion_provider_config():
    """The expansion's provider: ``settings.HEARTBENCH_SCENARIO_EXPANSION_PROVIDER`` (a
    ``ProviderConfig``) or the ``HEARTBENCH_SCENARIO_EXPANSION_*`` environment."""
    import os

    from llm import ProviderConfig

    configured = getattr(settings, "HEARTBENCH_SCENARIO_EXPANSION_PROVIDER", None)
    if configured is not None:
        return configured
    prefix = "HEARTBENCH_SCENARIO_EXPANSION"
    if not any(os.environ.get(f"{prefix}_{n}") for n in ("KIND", "API_KEY", "BASE_URL")):
        return None
    return ProviderConfig.from_env(prefix, os.environ)


def blueprint_expand(*, blueprint_id: int, config=None) -> ScenarioBlueprint:
    """Expand a pending blueprint through the LLM into a draft scenario (version 1).

    Idempotent: a blueprint that is not pending is returned unchanged, so a redelivered
    task expands nothing twice. The model call runs outside any transaction.
    """
    from llm import make_client

    blueprint = ScenarioBlueprint.objects.get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    config = config or expansion_provider_config()
    if config is None:
        return _blueprint_fail(
            blueprint_id=blueprint_id,
            error="No LLM provider is configured for scenario expansion: set "
            "HEARTBENCH_SCENARIO_EXPANSION_KIND (and its key/model), or enter the scenario "
            "by hand.",
        )
    stage = LIFE_STAGES[blueprint.stage]
    user = EXPANSION_USER_TEMPLATE.format(
        stage_label=stage.label,
        age_range=stage.release_age_range,
        first_age=stage.first_age,
        last_age=stage.last_age,
        dimension=blueprint.diamonds_dimension,
        title=blueprint.title,
        summary=blueprint.summary,
    )
    # App. L.4: up to two retries on failure.
    client = make_client(config)
    try:
        result = client.complete_json(
            system=EXPANSION_SYSTEM_PROMPT,
            user=user,
            schema=expansion_schema(blueprint.stage),
            max_attempts=3,
        )
    finally:
        client.close()
    record = result.as_dict()
    if not result.ok:
        return _blueprint_fail(
            blueprint_id=blueprint_id,
            error=f"The model call failed ({result.error_kind}): {result.error_message}",
            record=record,
        )
    return _blueprint_finish(blueprint_id=blueprint_id, parsed=result.parsed, record=record)


@transaction.atomic
def _blueprint_fail(*, blueprint_id: int, error: str, record=None) -> ScenarioBlueprint:
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    blueprint.status = ScenarioBlueprint.Status.FAILED
    blueprint.error = error
    blueprint.call_record = _json_safe(record or {})
    blueprint.finished_at = timezone.now()
    blueprint.save()
    return blueprint


def _json_safe(value):
    return json.loads(json.dumps(value, default=str))


@transaction.atomic
def _blueprint_finish(*, blueprint_id: int, parsed: dict, record: dict) -> ScenarioBlueprint:
    blueprint = ScenarioBlueprint.objects.select_for_update().get(pk=blueprint_id)
    if blueprint.status != ScenarioBlueprint.Status.PENDING:
        return blueprint
    stage = LIFE_STAGES[blueprint.stage]
    content = {
        "stage": blueprint.stage,
        "age_range": stage.release_age_range,
        "age": parsed["age"],
        "diamonds_dimension": blueprint.diamonds_dimension,
        "name": parsed["name"],
        "category": parsed["category"],
        "intensity": parsed["intensity"],
        "description_for_agent": parsed["description_for_agent"],
        "setting_location": parsed["setting"]["location"],
        "setting_time": parsed["setting"]["time"],
        "setting_atmosphere": parsed["setting"]["atmosphere"],
        "context_text": parsed["context_text"],
        "trigger_sender": parsed["trigger_event"]["sender"],
        "trigger_message": parsed["trigger_event"]["message_content"],
        "action_required": parsed["trigger_event"]["action_required"],
    }
    try:
        clean = _clean_content(content)
    except ReviewError as error:
        blueprint.status = ScenarioBlueprint.Status.FAILED
        blueprint.error = "The expansion is unusable: " + " ".join(error.messages)
    else:
        blueprint.scenario = _create_scenario(
            content=clean,
            origin=ScenarioVersion.Origin.BLUEPRINT,
            user=blueprint.created_by,
            note=f"LLM expansion of blueprint {blueprint.pk} ({record.get('model') or 'model'})",
            source=f"blueprint {blueprint.pk}",
        )
        blueprint.status = ScenarioBlueprint.Status.EXPANDED
    blueprint.call_record = _json_safe(record)
    blueprint.finished_at = timezone.now()
    blueprint.save()
    ReviewEvent.objects.create(
        actor=None,
        action="blueprint_expand",
        scenario=blueprint.scenario,
        details={"blueprint": blueprint.pk, "status": blueprint.status},
    )
    return blueprint
