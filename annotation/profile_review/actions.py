"""Profile review's actions, one door each (issue #33): the review and adjudication pages
and ``/api/review/`` validate with the same forms and reach the services through these
functions, so both refuse with the same words (``core.actions``)."""

from annotation.profile_review import services
from annotation.profile_review.models import ReviewError
from core.actions import ActionRefused, form_action

__all__ = [
    "ActionRefused",
    "change_request_add",
    "change_request_resolve",
    "change_request_withdraw",
    "profile_edit",
    "profile_freeze",
    "profile_review_save",
]

REFUSALS = (ReviewError,)


def profile_review_save(form, *, user, character_key: str, submit: bool, unoffered=None):
    """An annotator's review, saved as a draft or submitted, from a bound
    ``ProfileReviewForm``. ``unoffered``: criteria a script sent that the form does not
    offer, left to the service to refuse in its own words."""
    return form_action(
        form,
        lambda data: services.profile_review_save(
            character_key=character_key,
            reviewer=user,
            recommendation=data["recommendation"],
            criteria={**form.criteria(), **(unoffered or {})},
            explanation=data["explanation"],
            unresolved_concern=data["unresolved_concern"],
            missing_information=data["missing_information"],
            submit=submit,
        ),
        refusals=REFUSALS,
    )


def change_request_add(form, *, user, character_key: str):
    """A field-level change request, from a bound ``ChangeRequestForm``."""
    return form_action(
        form,
        lambda data: services.change_request_add(
            character_key=character_key, reviewer=user, **data
        ),
        refusals=REFUSALS,
    )


def change_request_withdraw(*, user, request_id: int):
    """Withdraw one's own change request (a button: no fields to validate)."""
    try:
        return services.change_request_withdraw(request_id=request_id, reviewer=user)
    except REFUSALS as error:
        raise ActionRefused(None, cause=error) from error


def change_request_resolve(form, *, user, request_id: int):
    """The senior expert accepts or rejects a change request, from a bound
    ``ChangeRequestResolveForm``."""
    return form_action(
        form,
        lambda data: services.change_request_resolve(
            request_id=request_id, arbitrator=user, status=data["status"], reason=data["reason"]
        ),
        refusals=REFUSALS,
    )


def profile_edit(form, *, user, character_key: str):
    """The senior expert's edit of the latest version, from a bound ``ProfileEditForm``."""
    return form_action(
        form,
        lambda data: services.profile_edit(
            character_key=character_key,
            editor=user,
            values=form.values(),
            confirm_anchor_change=data["confirm_anchor_change"],
            note=data["note"],
        ),
        refusals=REFUSALS,
    )


def profile_freeze(form, *, user, character_key: str):
    """The senior expert freezes the latest version, from a bound ``FreezeForm``."""
    return form_action(
        form,
        lambda data: services.profile_freeze(
            character_key=character_key,
            arbitrator=user,
            suitability_confirmed=data["suitability_confirmed"],
            note=data["note"],
        ),
        refusals=REFUSALS,
    )
