"""Fixtures of the release hygiene tests: role groups, people, and a small published
corpus: one character with a profile, a clean memory, a memory with planted personal
data, and a final item whose reference and options are published."""

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from core.roles import Role
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

CLEAN = (
    "The rain drummed on the tall library windows and I counted the drops racing down the "
    "glass. My stomach tightened and my hands went cold around the strap of my bag. That "
    "evening I told my mother about the drops, and the next day I brought a book."
)
EMAIL = "marta.keller@example.org"
PHONE = "+44 20 7946 0958"
NAME = "Ottoline"
PLANTED = (
    f"After school my friend {NAME} wrote her address on my hand, {EMAIL}, and said I could "
    f"call her at {PHONE} whenever the house got too loud."
)
# The character's own people: a name the profile holds is not flagged.
PROFILE_NAME = "Bertrand"
REFERENCE_DECISION = "I stay with the class plants and ask Bertrand to water them with me."


@pytest.fixture
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def person(role_groups):
    def make(*roles, **kwargs):
        return UserFactory(roles=list(roles), **kwargs)

    return make


@pytest.fixture
def admin_user(person):
    return person(Role.ADMIN)


@pytest.fixture
def reviewer(person):
    return person(Role.MEMORY_REVIEWER)


@pytest.fixture
def corpus(db):
    character = CharacterFactory(key="CHAR_05")
    ProfileVersionFactory(
        character=character,
        number=1,
        description=f"Grew up with an older cousin, {PROFILE_NAME}, in a quiet town.",
    )
    clean = MemoryFactory(character=character, sequence=1, content_full=CLEAN)
    planted = MemoryFactory(character=character, sequence=2, content_full=PLANTED)
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_5")
    reference = ReferenceResponse.objects.create(
        character=character,
        scenario=scenario,
        summary="I feel torn but proud to be trusted.",
        final_decision=REFERENCE_DECISION,
        decision_type="adopted",
        source_family="gemini",
    )
    item = McqItem.objects.create(
        question_id="Q_CHAR_05_SCN_SCHOOL_AGE_5",
        character=character,
        scenario=scenario,
        stage=scenario.stage,
        correct_answer="A",
        status=McqItem.Status.FINAL,
        reference=reference,
    )
    for label in "ABCD":
        McqOption.objects.create(
            item=item,
            label=label,
            content=REFERENCE_DECISION if label == "A" else f"I do thing {label}.",
            is_correct=label == "A",
            source_character="CHAR_05",
        )
    return {"character": character, "clean": clean, "planted": planted, "reference": reference}


def screen_now(user):
    """A screen run in this process: started, then each character's unit screened."""
    from audit.hygiene import services

    run = services.hygiene_run_start(created_by=user)
    for unit_id in services.FLOW.units(run.pk).order_by("pk").values_list("pk", flat=True):
        services.hygiene_unit_screen(unit_id=unit_id)
    run.refresh_from_db()
    return run
