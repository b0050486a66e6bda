"""Demo data for scenario review and blueprints, put at telling stages of the workflow.

``demo_scenario_reviews(users=...)`` is idempotent: each step looks at the state it would
create and skips when it is there. It goes through the services, like a person would,
so the history records every step. It creates the second scenario reviewer the protocol
needs and returns the account for printing.
"""

from django.contrib.auth import get_user_model

from annotation.corpus.models import Scenario
from annotation.profile_review.demo import demo_accounts
from annotation.scenario_review import blueprints, services
from annotation.scenario_review.models import ScenarioBlueprint, ScenarioReview
from core.roles import Role
from llm import ProviderConfig

EXTRA_ACCOUNTS = (("scenario2", Role.SCENARIO_REVIEWER),)


SCORES_A = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)
SCORES_B = dict(
    duty=6, intellect=3, adversity=3, mating=1, positivity=2, negativity=5, deception=4, sociality=5
)


def _screen(scenario, reviewer) -> None:
    review = ScenarioReview.objects.filter(scenario=scenario).first()
    if review is not None and (
        review.stage != ScenarioReview.Stage.SCREENING
        or review.screenings.filter(reviewer=reviewer, version=review.version).exists()
    ):
        return
    services.scenario_screen(
        scenario_id=scenario.scenario_id,
        reviewer=reviewer,
        decision="approve",
        logically_consistent=True,
        psychologically_plausible=True,
        character_agnostic=True,
        note="[Demo] consistent, plausible, no identity anchors.",
    )


def _rate(scenario, reviewer, scores) -> None:
    review = ScenarioReview.objects.filter(scenario=scenario).first()
    if review.stage != ScenarioReview.Stage.RATING or review.ratings.filter(reviewer=reviewer):
        return
    services.scenario_rate(
        scenario_id=scenario.scenario_id, reviewer=reviewer, scores=scores, note="[Demo rating]"
    )


def _scenarios(lead, second) -> None:
    scenarios = list(Scenario.objects.order_by("age", "scenario_id")[:5])
    if len(scenarios) < 5:
        return
    awaiting_lead, rating, split, complete = scenarios[0], scenarios[1], scenarios[2], scenarios[3]
    _screen(awaiting_lead, second)  # pass 1: the demo reviewer's approval is still to come
    for scenario in (rating, split, complete):
        _screen(scenario, second)
        _screen(scenario, lead)
    _rate(rating, second, SCORES_A)  # pass 2: the demo reviewer rates blind
    _rate(split, second, SCORES_A)
    _rate(split, lead, SCORES_B)  # adversity 6 vs 3: joint re-assessment awaits
    _rate(complete, second, SCORES_A)
    _rate(complete, lead, dict(SCORES_A, duty=4))
    # scenarios[4] and the rest: untouched, for the demo reviewer to screen.


def _blueprint(author) -> None:
    title = "[Demo] The borrowed notes"
    if ScenarioBlueprint.objects.filter(title=title).exists():
        return
    blueprint = blueprints.blueprint_create(
        user=author,
        title=title,
        summary="A classmate asks to copy your lecture notes the night before an exam that "
        "is graded on a curve, after skipping every group meeting this term.",
        stage="early_adult_transition",
        diamonds_dimension="Duty",
    )
    blueprints.blueprint_expand(
        blueprint_id=blueprint.pk, config=ProviderConfig(kind="offline_demo", model="offline-demo")
    )


def demo_scenario_reviews(*, users: dict) -> list[tuple[str, Role, str]]:
    """Put demo scenarios at telling stages of both passes and expand one blueprint;
    returns the extra account.

    ``users`` maps role values to the demo's one account per role.
    """
    accounts = demo_accounts(EXTRA_ACCOUNTS)
    second = get_user_model().objects.get(username="scenario2")
    _scenarios(users[Role.SCENARIO_REVIEWER.value], second)
    _blueprint(second)
    return accounts
