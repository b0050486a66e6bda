"""MCQ review and assembly actions, one door each (issue #33): the item page and
``/api/items/`` validate with the same form and reach the service through these
functions, so both refuse with the same words (``core.actions``)."""

from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.models import McqError
from adjudication.mcq.services import item_assembly, item_review, item_screening, screening_runs
from core import drafts
from core.actions import ActionRefused, form_action

__all__ = [
    "ActionRefused",
    "assembly_run_start",
    "item_review_decide",
    "item_screen",
    "revisable",
    "revise_draft_key",
    "screening_run_launch",
    "screening_run_resume",
]


def revise_draft_key(item) -> str:
    """One draft per item version: a draft never reappears on a later version."""
    return f"mcq-revise:{item.pk}:v{item.version}"


def revisable(page) -> bool:
    return page.item.status in mcq_selectors.REVIEW_QUEUE_STATUSES and not page.incomplete


def item_review_decide(form, *, user, item):
    """A review action from a bound ``ReviewDecisionForm``; the reviser's draft of this
    version goes once the decision is made."""
    decision = form_action(
        form,
        lambda data: item_review.mcq_review_decide(
            item_id=item.pk,
            reviewer=user,
            action=data["action"],
            version=data["version"],
            note=data["note"],
            label=data["label"] or None,
            content=data["content"],
            reference_id=data["reference_id"],
        ),
        refusals=(McqError,),
    )
    drafts.form_draft_clear(user=user, key=revise_draft_key(item))
    return decision


def assembly_run_start(form, *, user):
    """An assembly run from a bound ``AssemblyRunForm``."""
    return form_action(
        form,
        lambda data: item_assembly.mcq_assembly_run_start(
            started_by=user,
            params=data["params"],
            gate_override_reason=data["gate_override_reason"],
        ),
        refusals=(McqError,),
    )


def item_screen(*, item_id: int, user=None, on_unavailable=None):
    """'Screen now' (no form): the screening run it opened, or the service's refusal as
    :class:`ActionRefused` without a form. ``McqItem.DoesNotExist`` passes through (each
    door answers its own 404)."""
    try:
        return item_screening.mcq_screening_request(
            item_id=item_id, user=user, on_unavailable=on_unavailable
        )
    except McqError as error:
        raise ActionRefused(None, cause=error) from error


def screening_run_launch(form, *, user, on_unavailable=None):
    """A run screening every item awaiting screening, from a bound ``ScreeningRunForm``
    (its optional budget)."""
    return form_action(
        form,
        lambda data: screening_runs.screening_run_for_everything_awaiting(
            user=user, budget_usd=data.get("budget_usd"), on_unavailable=on_unavailable
        ),
        refusals=(McqError,),
    )


def screening_run_resume(form, *, run_id: int, user=None, on_unavailable=None):
    """Resume a run stopped at its budget or a monthly cap with the new budget of a
    bound ``RunResumeForm`` (blank: none)."""
    return form_action(
        form,
        lambda data: screening_runs.screening_run_resume(
            run_id=run_id,
            budget_usd=data.get("budget_usd"),
            user=user,
            on_unavailable=on_unavailable,
        ),
        refusals=(McqError,),
    )
