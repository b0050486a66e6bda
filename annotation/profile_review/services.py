"""Writes of profile review (seed 000 §2.2 Stage 1, App. B.3). Every transition is one
keyword-only, atomic function that checks the state it starts from and raises a
``ReviewError`` whose message says what to do; each one appends a ``ReviewEvent``
(``record_event``, which scenario review uses too, like ``require_role``).
"""

import math

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.corpus.models import CORE_PATTERN_COUNT, Character, ProfileVersion
from annotation.profile_review.models import (
    BIG_FIVE_FIELDS,
    BIG_FIVE_LETTER_FIELD,
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_LABELS,
    ChangeRequest,
    ProfileEdit,
    ProfileReview,
    ProfileReviewCase,
    Recommendation,
    ReviewError,
    ReviewEvent,
    accepted_as_is,
    accepted_as_is_message,
    profile_field_text,
)
from core.plurals import agree, counted
from core.protocol import PROFILE_REVIEWERS
from core.roles import Role, has_any_role
from core.text_diff import passage_in, word_diff
from core.text_rules import NOTE, TEXT, check_text, check_texts

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
# The limit of each typed field of profile review (issue #24): the column's for the
# one-line profile fields, a long text's for the prose and the passages a review quotes,
# a note's for everything a reviewer or the senior explains. Forms, API and services.
PROFILE_TEXT_LIMITS = {
    "construction_label": 200,
    "occupation": 300,
    "description": TEXT,
    "self_value_logic": TEXT,
    **{f"core_pattern_{i}": TEXT for i in range(1, CORE_PATTERN_COUNT + 1)},
    "passage": TEXT,
    "concern": NOTE,
    "suggested_correction": TEXT,
    "explanation": NOTE,
    "unresolved_concern": NOTE,
    "missing_information": NOTE,
    "reason": NOTE,
    "note": NOTE,
}
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


def _check_texts(**texts) -> None:
    """The text rules on typed profile-review fields, as a ``ReviewError``."""
    labels = {**EDIT_FIELD_LABELS, "note": "Note", "reason": "Reason"}
    check_texts(
        {f: v for f, v in texts.items() if v is not None},
        PROFILE_TEXT_LIMITS,
        labels=labels,
        error=ReviewError,
    )


def record_event(*, actor, action: str, character=None, scenario=None, **details) -> None:
    """Append one transition of either construction-stage review to the history."""
    ReviewEvent.objects.create(
        actor=actor, action=action, character=character, scenario=scenario, details=details
    )


def require_role(user, role: Role, doing: str) -> None:
    """Refuse, with a ``ReviewError`` naming the role, unless ``user`` holds ``role``."""
    if not has_any_role(user, [role]):
        raise ReviewError(f"Only a {role.label.lower()} can {doing}.")


# --- The annotators -------------------------------------------------------------------


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
    require_role(reviewer, Role.PRIMARY_ANNOTATOR, "review profiles")
    _check_texts(passage=passage, concern=concern, suggested_correction=suggested_correction)
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
    record_event(
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
    record_event(
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
    require_role(reviewer, Role.PRIMARY_ANNOTATOR, "review profiles")
    _check_texts(
        explanation=explanation,
        unresolved_concern=unresolved_concern,
        missing_information=missing_information,
    )
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
                f"“Acceptable as-is” means no change is needed, but the review has "
                f"{counted(requests, 'change request')}: withdraw "
                f"{agree(requests, 'it', 'them')} or choose “Local revision needed”."
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
        if submitted >= PROFILE_REVIEWERS:
            case.status = ProfileReviewCase.Status.ADJUDICATING
            case.save(update_fields=["status"])
        record_event(
            actor=reviewer,
            action="profile_review_submit",
            character=case.character,
            version=case.reviewed_version.number,
            recommendation=recommendation,
            submitted=submitted,
        )
    return review


# --- The senior expert ----------------------------------------------------------------


def _adjudicating_case(*, character_key: str, arbitrator) -> ProfileReviewCase:
    require_role(arbitrator, Role.ARBITRATOR, "adjudicate profile reviews")
    case = _open_case(character_key=character_key, create=False)
    if case.status != ProfileReviewCase.Status.ADJUDICATING:
        submitted = case.reviews.filter(submitted_at__isnull=False).count()
        raise ReviewError(
            f"{case.reviewed_version} has {submitted} of {PROFILE_REVIEWERS} reviews; "
            "adjudication opens when every reviewer has submitted."
        )
    return case


@transaction.atomic
def change_request_resolve(
    *, request_id: int, arbitrator, status: str, reason: str = ""
) -> ChangeRequest:
    """Accept or reject (with a reason) one change request."""
    _check_texts(reason=reason)
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
    record_event(
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
    _check_texts(
        note=note,
        **{f: values[f] for f in ("construction_label", "occupation") if f in values},
        **{f: values[f] for f in ("description", "self_value_logic") if f in values},
    )
    for i, pattern in enumerate(values.get("core_patterns") or [], start=1):
        check_text(str(pattern), label=f"Core pattern {i}", limit=TEXT, error=ReviewError)
    case = _adjudicating_case(character_key=character_key, arbitrator=editor)
    current = _latest_version(case.character)
    if current.is_frozen:
        raise ReviewError(f"{current} is frozen and cannot change.")
    submitted = case.reviews.filter(submitted_at__isnull=False)
    if accepted_as_is(submitted.values_list("recommendation", flat=True)):
        raise ReviewError(accepted_as_is_message(case.character.key))
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
    record_event(
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
    _check_texts(note=note)
    case = _adjudicating_case(character_key=character_key, arbitrator=arbitrator)
    open_requests = ChangeRequest.objects.filter(
        review__case=case, status=ChangeRequest.Status.OPEN
    ).count()
    if open_requests:
        raise ReviewError(
            f"{counted(open_requests, 'change request')} {agree(open_requests, 'is', 'are')} "
            "still open: accept or reject each one "
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
    record_event(
        actor=arbitrator,
        action="profile_freeze",
        character=case.character,
        version=version.number,
        reviewed_version=case.reviewed_version.number,
    )
    return version
