"""Fixtures of the review tests: the reviewers of both workflows and a small corpus."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.profile_review import services
from annotation.scenario_review import services as scenario_services
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory

ALL_MEET = {
    "trait_alignment": "meets",
    "internal_coherence": "meets",
    "occupational_plausibility": "meets",
    "behavioral_specificity": "meets",
    "interpretive_restraint": "meets",
}
SCORES = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)


@pytest.fixture(autouse=True)
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def annotators(db):
    return [UserFactory(username=f"rev-{i}", roles=[Role.PRIMARY_ANNOTATOR]) for i in (1, 2, 3)]


@pytest.fixture
def senior(db):
    return UserFactory(username="senior", roles=[Role.ARBITRATOR])


@pytest.fixture
def scenario_reviewers(db):
    return [UserFactory(username=f"scn-{i}", roles=[Role.SCENARIO_REVIEWER]) for i in (1, 2)]


@pytest.fixture
def draft(db):
    """CHAR_01 v1, an N-high draft (N 0.95)."""
    return ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)


@pytest.fixture
def scenario(db):
    return ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def submit(key, reviewer, recommendation="accept", **kwargs):
    return services.profile_review_save(
        character_key=key,
        reviewer=reviewer,
        recommendation=recommendation,
        criteria=ALL_MEET,
        submit=True,
        **kwargs,
    )


def request_change(key, reviewer, field="description", passage="reads every situation", **kw):
    return services.change_request_add(
        character_key=key,
        reviewer=reviewer,
        field=field,
        passage=passage,
        concern=kw.get("concern", "Too categorical."),
        suggested_correction=kw.get("suggested_correction", "Say 'tends to read'."),
    )


def approve(scenario_id, reviewer):
    return scenario_services.scenario_screen(
        scenario_id=scenario_id,
        reviewer=reviewer,
        decision="approve",
        logically_consistent=True,
        psychologically_plausible=True,
        character_agnostic=True,
    )


def rate(scenario_id, reviewer, **overrides):
    return scenario_services.scenario_rate(
        scenario_id=scenario_id, reviewer=reviewer, scores=dict(SCORES, **overrides)
    )
