"""Fixtures of the reference-label audit tests: role groups, an audit team, and small
final sets of MCQ items built by hand (the release's 673 are imported where a test
needs them)."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.models import OPTION_LABELS, McqItem, McqOption
from core.roles import Role
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory


def ensure_groups():
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture(autouse=True)
def role_groups(db):
    ensure_groups()


def make_team(prefix="lab"):
    experts = [
        UserFactory(username=f"{prefix}-expert-{i}", roles=[Role.AUDIT_EXPERT]) for i in (1, 2, 3)
    ]
    adjudicator = UserFactory(username=f"{prefix}-adjudicator", roles=[Role.AUDIT_ADJUDICATOR])
    admin = UserFactory(
        username=f"{prefix}-admin", roles=[Role.ADMIN], is_staff=True, is_superuser=True
    )
    return {"experts": experts, "adjudicator": adjudicator, "admin": admin}


@pytest.fixture
def team(db):
    return make_team()


def option_text(question_id: str, label: str) -> str:
    return f"{question_id} option {label}: I answer in my own way, {label.lower()}-style."


def make_item(character, scenario, *, key="B", stage=None, sources=None, texts=None):
    """A final four-option item for (character, scenario) keyed ``key``; distractors
    come from ``sources`` (character keys of the other options, in label order)."""
    question_id = f"Q_{character.key}_{scenario.scenario_id}"
    item = McqItem.objects.create(
        question_id=question_id,
        character=character,
        scenario=scenario,
        stage=stage or scenario.stage,
        correct_answer=key,
        status=McqItem.Status.FINAL,
    )
    others = iter(sources or ["CHAR_71", "CHAR_72", "CHAR_73"])
    for label in OPTION_LABELS:
        McqOption.objects.create(
            item=item,
            label=label,
            content=(texts or {}).get(label) or option_text(question_id, label),
            is_correct=label == key,
            source_character=character.key if label == key else next(others),
        )
    return item


def small_final_set(*, characters=2, stages=("school_age", "adolescence"), per_stratum=3):
    """``characters`` characters with a frozen profile, ``per_stratum`` items in each of
    ``stages``; every other life-stage bin is empty."""
    items = []
    ages = {"school_age": 10, "adolescence": 15, "early_adult_transition": 20}
    n = 0
    for c in range(1, characters + 1):
        character = CharacterFactory(key=f"CHAR_{40 + c:02d}")
        ProfileVersionFactory(
            character=character, number=1, frozen_at=datetime(2026, 1, 5, tzinfo=UTC)
        )
        for stage in stages:
            for _ in range(per_stratum):
                n += 1
                scenario = ScenarioFactory(
                    scenario_id=f"SCN_{stage.upper()}_{90000 + n}", stage=stage, age=ages[stage]
                )
                items.append(make_item(character, scenario, key="ABCD"[n % 4]))
    return items
