"""Scenario review's actions, one door each (issue #33): the review pages and
``/api/review/scenarios/`` validate with the same forms and reach the services through
these functions, so both refuse with the same words (``core.actions``)."""

from annotation.profile_review.models import ReviewError
from annotation.scenario_review import blueprints, services
from core.actions import ActionRefused, form_action
from core.tasks import enqueue_on_commit

__all__ = [
    "ActionRefused",
    "blueprint_create",
    "blueprint_queue",
    "scenario_create",
    "scenario_rate",
    "scenario_reassess_confirm",
    "scenario_reassess_propose",
    "scenario_revise",
    "scenario_screen",
]

REFUSALS = (ReviewError,)


def scenario_create(form, *, user):
    """A scenario entered by hand, from a bound ``ScenarioContentForm``."""
    return form_action(
        form,
        lambda data: services.scenario_create_manual(
            user=user, content=form.content(), note=data["note"]
        ),
        refusals=REFUSALS,
    )


def scenario_screen(form, *, user, scenario_id: str):
    """A pass-1 screening decision, from a bound ``ScreeningForm``."""
    return form_action(
        form,
        lambda data: services.scenario_screen(scenario_id=scenario_id, reviewer=user, **data),
        refusals=REFUSALS,
    )


def scenario_revise(form, *, user, scenario_id: str):
    """A consensus revision, from a bound ``ScenarioContentForm``."""
    return form_action(
        form,
        lambda data: services.scenario_revise(
            scenario_id=scenario_id, reviewer=user, content=form.content(), note=data["note"]
        ),
        refusals=REFUSALS,
    )


def scenario_rate(form, *, user, scenario_id: str):
    """Pass-2 DIAMONDS ratings, from a bound ``DiamondsRatingForm``."""
    return form_action(
        form,
        lambda data: services.scenario_rate(
            scenario_id=scenario_id, reviewer=user, scores=form.scores(), note=data["note"]
        ),
        refusals=REFUSALS,
    )


def scenario_reassess_propose(form, *, user, scenario_id: str, unoffered: dict | None = None):
    """A joint re-assessment proposal, from a bound ``ReassessmentForm``. ``unoffered``:
    dimensions a script sent that the form does not offer, left to the service to refuse
    in its own words."""

    def propose(data):
        agreed = form.agreed()
        agreed.update({k: v for k, v in (unoffered or {}).items() if k not in agreed})
        return services.scenario_reassess_propose(
            scenario_id=scenario_id, reviewer=user, agreed=agreed, note=data["note"]
        )

    return form_action(form, propose, refusals=REFUSALS)


def scenario_reassess_confirm(form, *, user, scenario_id: str):
    """The other reviewer's confirmation, from a bound ``ReassessmentConfirmForm``."""
    return form_action(
        form,
        lambda data: services.scenario_reassess_confirm(
            scenario_id=scenario_id,
            reviewer=user,
            proposal_id=data["proposal"],
            agreed=form.agreed(),
            note=data["note"],
        ),
        refusals=REFUSALS,
    )


def blueprint_create(form, *, user, on_unavailable=None):
    """A blueprint from a bound ``BlueprintForm``; a worker expands it into a draft
    scenario once the transaction commits."""
    blueprint = form_action(
        form, lambda data: blueprints.blueprint_create(user=user, **data), refusals=REFUSALS
    )
    _queue_expansion(blueprint.pk, on_unavailable)
    return blueprint


def blueprint_queue(*, user, blueprint_id: int, on_unavailable=None):
    """Queue a blueprint's expansion again; a failed one is reset first, an expanded one
    refused (a button: no fields to validate)."""
    try:
        blueprint = blueprints.blueprint_requeue(blueprint_id=blueprint_id, user=user)
    except REFUSALS as error:
        raise ActionRefused(None, cause=error) from error
    _queue_expansion(blueprint_id, on_unavailable)
    return blueprint


def _queue_expansion(blueprint_id: int, on_unavailable) -> None:
    enqueue_on_commit(
        "annotation.expand_scenario_blueprint",
        blueprint_id,
        what=f"Blueprint {blueprint_id}",
        on_unavailable=on_unavailable,
    )
