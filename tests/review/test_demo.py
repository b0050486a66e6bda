"""The demo data for both reviews: at the intended stages, and idempotent."""

from django.contrib.auth import get_user_model

from annotation.profile_review.demo import demo_profile_reviews
from annotation.profile_review.models import ChangeRequest, ProfileReviewCase, ReviewEvent
from annotation.scenario_review.demo import demo_scenario_reviews
from annotation.scenario_review.models import ScenarioBlueprint, ScenarioReview
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory


def demo_reviews(*, users):
    """Both reviews' demo data, in the order ``demo_setup`` runs them."""
    return demo_profile_reviews(users=users) + demo_scenario_reviews(users=users)


def test_demo_reviews_sets_the_stages_and_can_run_twice(db):
    for n in range(1, 6):
        ProfileVersionFactory(character=CharacterFactory(key=f"CHAR_{n:02d}"), number=1)
    for n in range(1, 7):
        ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{n}", age=6 + n)
    users = {
        role.value: UserFactory(username=name, roles=[role])
        for name, role in [
            ("annotator", Role.PRIMARY_ANNOTATOR),
            ("arbitrator", Role.ARBITRATOR),
            ("scenario", Role.SCENARIO_REVIEWER),
        ]
    }
    accounts = demo_reviews(users=users)
    assert [(u, r, p) for u, r, p in accounts] == [
        ("annotator2", Role.PRIMARY_ANNOTATOR, "annotator2-demo-pass"),
        ("annotator3", Role.PRIMARY_ANNOTATOR, "annotator3-demo-pass"),
        ("scenario2", Role.SCENARIO_REVIEWER, "scenario2-demo-pass"),
    ]
    assert (
        get_user_model().objects.get(username="annotator2").check_password("annotator2-demo-pass")
    )
    cases = {c.character.key: c for c in ProfileReviewCase.objects.select_related("character")}
    assert cases["CHAR_01"].status == cases["CHAR_02"].status == "adjudicating"
    assert cases["CHAR_03"].status == "reviewing"
    assert not cases["CHAR_03"].reviews.filter(reviewer=users["primary_annotator"]).exists()
    assert set(cases) == {"CHAR_01", "CHAR_02", "CHAR_03"}  # CHAR_04/05 untouched
    assert ChangeRequest.objects.filter(status="open").count() == 1
    stages = dict(ScenarioReview.objects.values_list("scenario__scenario_id", "stage"))
    assert stages == {
        "SCN_SCHOOL_AGE_1": "screening",
        "SCN_SCHOOL_AGE_2": "rating",
        "SCN_SCHOOL_AGE_3": "reassessment",
        "SCN_SCHOOL_AGE_4": "complete",
        "SCN_EARLY_ADULT_TRANSITION_1": "screening",
    }
    assert ScenarioBlueprint.objects.get().status == "expanded"

    events = ReviewEvent.objects.count()
    demo_reviews(users=users)
    assert ReviewEvent.objects.count() == events
    assert ScenarioBlueprint.objects.count() == 1
