"""A small benchmark for the human-baseline tests: characters with frozen profiles whose
secret fields carry distinctive strings, memories, scenarios and final items, and a
study on a subset of them (the selection is written directly; test_subset.py tests the
ILP)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration.models import ReferenceResponse
from adjudication.mcq.models import McqItem, McqOption
from core.roles import Role
from humanbaseline import services
from humanbaseline.models import SelectionItem, SubsetSelection
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

FROZEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FAMILIES = ("gemini", "claude", "gpt")
# Strings a participant must never receive (profile, annotations, provenance).
SECRETS = {
    "construction label": "Qvx-label-N-HIGH-archetype",
    "profile description": "Qvx description: a person who reads every room twice",
    "self-value logic": "Qvx logic: worth is earned by vigilance",
    "core pattern": "Qvx pattern 4: rehearses apologies",
    "Big Five value": "0.8713",
    "memory id (with trait label)": "MEM_CHAR_01_QVXTRAIT_0001",
    "psych_conclusion": "Qvx psych conclusion: lateness means abandonment",
    "behavior_policy": "Qvx behavior policy: always arrive early",
    "memory context": "Qvx context: the school library in the rain",
    "content_summary": "Qvx summary: I waited alone",
    "reference provenance": "Qvx reference source file",
}


@pytest.fixture
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def admin_user(role_groups):
    return UserFactory(roles=[Role.ADMIN])


def build_items(n_characters: int, n_scenarios: int, *, memories: int = 4):
    """One final item per (character, scenario); the key's letter rotates; returns items
    in creation order."""
    characters = []
    for n in range(1, n_characters + 1):
        character = CharacterFactory(key=f"CHAR_{n:02d}")
        ProfileVersionFactory(
            character=character,
            number=1,
            construction_label=SECRETS["construction label"],
            occupation=f"Occupation {n}",
            openness=float(SECRETS["Big Five value"]),
            description=SECRETS["profile description"],
            self_value_logic=SECRETS["self-value logic"],
            core_patterns=[SECRETS["core pattern"]] + [f"pattern {i}" for i in range(2, 9)],
            frozen_at=FROZEN,
        )
        for seq in range(1, memories + 1):
            MemoryFactory(
                character=character,
                sequence=seq,
                memory_id=(
                    SECRETS["memory id (with trait label)"]
                    if (n, seq) == (1, 1)
                    else f"MEM_CHAR_{n:02d}_QVXTRAIT_{seq:04d}"
                ),
                event_age=6 + seq,
                content_full=f"Narrative {seq} of character {n}: the plants, the teacher, a trip.",
                context=SECRETS["memory context"],
                content_summary=SECRETS["content_summary"],
                psych_conclusion=SECRETS["psych_conclusion"],
                behavior_policy=SECRETS["behavior_policy"],
            )
        characters.append(character)
    items = []
    for s in range(1, n_scenarios + 1):
        scenario = ScenarioFactory(
            scenario_id=f"SCN_SCHOOL_AGE_{s}", age=12, name=f"Scenario {s}", stage="school_age"
        )
        refs = {
            c.key: ReferenceResponse.objects.create(
                character=c,
                scenario=scenario,
                summary="s",
                final_decision=f"Response of {c.key} in scenario {s}: I water the plants.",
                decision_type=ReferenceResponse.DecisionType.IMPORTED,
                source=SECRETS["reference provenance"],
                source_family=FAMILIES[(int(c.key[-2:]) + s) % 3],
            )
            for c in characters
        }
        for c_index, character in enumerate(characters):
            position = (c_index + s) % 4
            others = [k for k in refs if k != character.key][:3]
            slots = list(others)
            slots.insert(position, character.key)
            item = McqItem.objects.create(
                question_id=f"Q_{character.key}_{scenario.scenario_id}",
                character=character,
                scenario=scenario,
                stage="school_age",
                correct_answer="ABCD"[position],
                reference=refs[character.key],
                status=McqItem.Status.FINAL,
            )
            for i, key in enumerate(slots):
                McqOption.objects.create(
                    item=item,
                    label="ABCD"[i],
                    content=refs[key].final_decision,
                    is_correct=i == position,
                    source_character=key,
                )
            items.append(item)
    return items


def direct_selection(items, *, user, families=None) -> SubsetSelection:
    """A stored selection of exactly ``items`` (families from the references unless given)."""
    selection = SubsetSelection.objects.create(
        seed=1,
        parameters={"quotas": dict.fromkeys(FAMILIES, 2)},
        feasible=True,
        n_candidates=len(items),
        created_by=user,
    )
    SelectionItem.objects.bulk_create(
        SelectionItem(
            selection=selection,
            item=item,
            family=(families or {}).get(item.pk) or item.reference.source_family,
            character_key=item.character.key,
            stage=item.stage,
        )
        for item in items
    )
    return selection


def make_study(*, n_items: int, n_practice: int = 1, n_characters: int = 5):
    """The subset fills the first scenarios; the practice items come from the scenarios
    after them (a practice item shares no scenario with the subset)."""
    admin = UserFactory(roles=[Role.ADMIN])
    subset_scenarios = -(-n_items // n_characters)
    practice_scenarios = -(-n_practice // n_characters)
    items = build_items(n_characters, subset_scenarios + practice_scenarios)
    first_practice = subset_scenarios * n_characters
    subset, practice = items[:n_items], items[first_practice : first_practice + n_practice]
    selection = direct_selection(subset, user=admin)
    study = services.study_create(
        user=admin,
        name="Everyday decisions study",
        selection=selection,
        consent_version="v1",
        consent_text="You may stop at any time. Your answers are stored without your name.",
        briefing="You will read short life stories and choose how the person would respond.",
        practice_question_ids=[i.question_id for i in practice],
    )
    return study, subset, practice


def enrol(study, username, *, consent=True, start=True):
    user = UserFactory(username=username, roles=[Role.BASELINE_PARTICIPANT])
    p = services.participant_enrol(study=study, user=user, via="admin")
    if consent:
        p = services.consent_decide(participation=p, agree=True, version=study.consent_version)
        p = services.briefing_complete(participation=p)
        if start:
            answer_practice(p)
            p = services.baseline_session_start(participation=p)
    return p


def answer_practice(p, choice="A"):
    """Answer every practice item of ``p``'s study: the study starts only after them."""
    for position in study_practice_positions(p.study):
        services.practice_answer(participation=p, position=position, choice=choice)


def study_practice_positions(study):
    return list(
        study.items.filter(is_practice=True).order_by("position").values_list("position", flat=True)
    )


def elapse(p, seconds):
    """As if ``seconds`` of wall-clock time passed since the participant's time was last
    counted: time reports are bounded by the time that passed."""
    from django.utils import timezone

    from humanbaseline.models import Participation

    Participation.objects.filter(pk=p.pk).update(
        time_counted_until=timezone.now() - timedelta(seconds=seconds)
    )


@pytest.fixture
def small_study(role_groups):
    return make_study(n_items=6, n_practice=2)
