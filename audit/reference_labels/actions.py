"""The reference-label audit's actions, one door each (issue #33): the audit pages and
``/api/audit/labels/`` validate with the same forms and reach the services through these
functions, so both refuse with the same words (``core.actions``). A construction record
(a conflict of interest) is refused like any refusal; its cause is a
``LabelAuditConflict`` (the page shows its conflict page, the API a 403)."""

from audit.reference_labels import services
from audit.reference_labels.models import LabelAuditError
from core.actions import ActionRefused, form_action

__all__ = ["ActionRefused", "label_audit_create", "label_item_adjudicate", "label_selection_submit"]

REFUSALS = (LabelAuditError,)


def label_audit_create(form, *, user):
    """A label audit from a bound ``LabelAuditCreateForm``."""
    return form_action(
        form,
        lambda data: services.label_audit_create(
            created_by=user,
            experts=list(data["experts"]),
            adjudicator=data["adjudicator"],
            items_per_stratum=data["items_per_stratum"],
            seed=data["seed"],
            note=data["note"],
        ),
        refusals=REFUSALS,
    )


def label_selection_submit(form, *, user, label_item_id: int):
    """An expert's blind selection, from a bound ``LabelSelectionForm``."""
    return form_action(
        form,
        lambda data: services.label_selection_submit(
            audit_item_id=label_item_id, expert=user, choice=data["choice"], note=data["note"]
        ),
        refusals=REFUSALS,
    )


def label_item_adjudicate(form, *, user, label_item_id: int, options):
    """The adjudicator's decision, from a bound ``LabelAdjudicationForm``; ``options``:
    the item's options as the page shows them (the form keeps the ones changed)."""
    return form_action(
        form,
        lambda data: services.label_item_adjudicate(
            audit_item_id=label_item_id,
            adjudicator=user,
            decision=data["decision"],
            note=data["note"],
            options=form.changed_options(options),
            new_key=data["new_key"],
        ),
        refusals=REFUSALS,
    )
