"""Arbitration's actions, one door each (issue #33): the pair page and
``/api/arbitration/`` build the same form (``arbitration_form``) and reach the services
through these functions, so both refuse with the same words (``core.actions``)."""

from adjudication.arbitration import selectors, services
from adjudication.arbitration.forms import ArbitrationForm, ReopenForm
from core.actions import ActionRefused, form_action

__all__ = ["ActionRefused", "arbitration_decide", "arbitration_form", "arbitration_reopen"]

TEXT_FIELDS = services.REFERENCE_TEXT_FIELDS


def arbitration_form(page, *args, **kwargs) -> ArbitrationForm:
    """The decision form of the pair ``page`` shows (``selectors.arbitration_page``)."""
    return ArbitrationForm(
        *args,
        pair_id=page.pair.pk,
        pair_label=page.pair.title,
        guidance=selectors.guidance_choices(page),
        **kwargs,
    )


def arbitration_decide(form, *, user, page, on_unavailable):
    """A decision on the pair ``page`` shows, from its bound form. A conflict of interest
    is refused like any refusal; its cause is an ``ArbitrationConflict``."""

    def decide(data):
        chosen = page.by_number(data["candidate"]) if data["candidate"] else None
        return services.arbitration_decide(
            pair_id=page.pair.pk,
            arbitrator=user,
            kind=data["kind"],
            candidate_id=chosen.candidate.pk if chosen else None,
            fields={f: data[f] for f in TEXT_FIELDS},
            reason=data["reason"],
            guidance=data["guidance"],
            guidance_followed=data.get("guidance_followed") or (),
            on_unavailable=on_unavailable,
        )

    return form_action(form, decide, refusals=(services.ArbitrationError,))


def arbitration_reopen(form: ReopenForm, *, user, pair_id: int):
    """An admin reopens a decided pair, from a bound ``ReopenForm``."""
    return form_action(
        form,
        lambda data: services.arbitration_reopen(
            pair_id=pair_id, admin=user, reason=data["reason"]
        ),
        refusals=(services.ArbitrationError,),
    )
