"""Demo data for the construction-stage reviews, put at telling stages of both workflows.

``demo_reviews(users=...)`` is idempotent: each step looks at the state it would create
and skips when it is there. It goes through the services, like a person would, so the
history records every step. It creates the extra reviewer accounts the workflows need
(three profile reviewers, two scenario reviewers) and returns them for printing.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.corpus.models import Character, Scenario
from annotation.profile_review import services
from annotation.profile_review.models import (
    ProfileReviewCase,
    Recommendation,
    ScenarioBlueprint,
    ScenarioReview,
    profile_field_text,
)
from heartbench_site.base.roles import Role
from llm import ProviderConfig

EXTRA_ACCOUNTS = (
    ("annotator2", Role.PRIMARY_ANNOTATOR),
    ("annotator3", Role.PRIMARY_ANNOTATOR),
    ("scenario2", Role.SCENARIO_REVIEWER),
)
ALL_MEET = {
    "trait_alignment": "meets",
    "internal_coherence": "meets",
    "occupational_plausibility": "meets",
    "behavioral_specificity": "meets",
    "interpretive_restraint": "meets",
}


def _accounts() -> list[tuple[str, Role, str]]:
    users = get_user_model()
    created = []
    for username, role in EXTRA_ACCOUNTS:
        password = f"{username}-demo-pass"
        user, _ = users.objects.get_or_create(username=username)
        user.set_password(password)
        user.save()
        user.groups.set([Group.objects.get(name=role.value)])
        created.append((username, role, password))
    return created


def _review(character: Character, reviewer, recommendation: str, *, request=None) -> None:
    case = ProfileReviewCase.objects.filter(character=character).first()
    if case and case.reviews.filter(reviewer=reviewer, submitted_at__isnull=False).exists():
        return
    if request:
        version = character.versions.order_by("-number").first()
        text = profile_field_text(version, request["field"])
        services.change_request_add(
            character_key=character.key,
            reviewer=reviewer,
            field=request["field"],
            passage=" ".join(text.split()[:6]),
            concern=request["concern"],
            suggested_correction=request["suggestion"],
        )
    services.profile_review_save(
        character_key=character.key,
        reviewer=reviewer,
        recommendation=recommendation,
        criteria=dict(ALL_MEET, internal_coherence="concern") if request else ALL_MEET,
        explanation="[Demo review] " + ("See the change request." if request else "Coherent."),
        submit=True,
    )


def _profiles(reviewers) -> None:
    drafts = [
        c
        for c in Character.objects.order_by("key")
        if (v := c.versions.order_by("-number").first()) is not None and not v.is_frozen
    ]
    if len(drafts) < 3:
        return
    first, second, third = drafts[:3]
    for reviewer in reviewers:
        _review(first, reviewer, Recommendation.ACCEPT)
    _review(second, reviewers[0], Recommendation.ACCEPT)
    _review(second, reviewers[1], Recommendation.ACCEPT)
    _review(
        second,
        reviewers[2],
        Recommendation.LOCAL_REVISION,
        request={
            "field": "description",
            "concern": "[Demo] The description states the trait as a fixed verdict rather "
            "than a tendency (interpretive restraint).",
            "suggestion": "[Demo] Qualify the claim: 'tends to', and name the situations.",
        },
    )
    # The third profile has two reviews in; the demo annotator's is still to do.
    _review(third, reviewers[0], Recommendation.ACCEPT)
    _review(third, reviewers[1], Recommendation.ACCEPT)


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
    blueprint = services.blueprint_create(
        user=author,
        title=title,
        summary="A classmate asks to copy your lecture notes the night before an exam that "
        "is graded on a curve, after skipping every group meeting this term.",
        stage="early_adult_transition",
        diamonds_dimension="Duty",
    )
    services.blueprint_expand(
        blueprint_id=blueprint.pk, config=ProviderConfig(kind="offline_demo", model="offline-demo")
    )


def demo_reviews(*, users: dict) -> list[tuple[str, Role, str]]:
    """Put demo data at telling stages of both reviews; returns the extra accounts.

    ``users`` maps role values to the demo's one account per role.
    """
    accounts = _accounts()
    by_name = {
        u.username: u
        for u in get_user_model().objects.filter(username__in=[name for name, _, _ in accounts])
    }
    annotator = users[Role.PRIMARY_ANNOTATOR.value]
    _profiles([by_name["annotator2"], by_name["annotator3"], annotator])
    _scenarios(users[Role.SCENARIO_REVIEWER.value], by_name["scenario2"])
    _blueprint(by_name["scenario2"])
    return accounts
