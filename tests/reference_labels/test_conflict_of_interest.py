"""The audit team must not have taken part in construction (App. D.4): the check runs
against the recorded history and a refusal names each excluded person and the records."""

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration.models import ArbitrationDecision
from adjudication.mcq.models import McqReviewDecision
from adjudication.mcq.versions import record_version
from annotation.profile_review import services as review_services
from annotation.scenario_review import services as scenario_review_services
from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services.configuration import audit_settings_current
from audit.reference_labels import services
from audit.reference_labels.models import LabelAudit, LabelAuditError
from core.roles import Role
from tests.comparison.helpers import assign, judge, make_pair
from tests.factories import (
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

from .conftest import make_item, small_final_set

pytestmark = pytest.mark.django_db


def create(team, **overrides):
    kwargs = {
        "created_by": team["admin"],
        "experts": team["experts"],
        "adjudicator": team["adjudicator"],
        "seed": 3,
    }
    kwargs.update(overrides)
    return services.label_audit_create(**kwargs)


def comparison_judgment(person, admin):
    pair = make_pair(key="CHAR_61")
    others = [
        UserFactory(username=f"coi-annotator-{i}", roles=[Role.PRIMARY_ANNOTATOR]) for i in (1, 2)
    ]
    assignments = assign(pair, [person, *others], admin)
    judge(assignments[person.pk], family="claude")
    return "comparison judgment (blinded three-candidate comparison) (CHAR_61 SCN_"


def arbitration(person, admin):
    pair = make_pair(key="CHAR_62")
    ArbitrationDecision.objects.create(
        pair=pair, kind=ArbitrationDecision.Kind.DISCARDED, arbitrator=person, reason="unfit"
    )
    return "arbitration decision (CHAR_62 SCN_"


def profile_review(person, admin):
    version = ProfileVersionFactory(character__key="CHAR_63", number=1)
    review_services.profile_review_save(
        character_key=version.character.key, reviewer=person, explanation="Coherent so far."
    )
    return "profile review (CHAR_63)"


def scenario_review(person, admin):
    scenario = ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_96400")
    scenario_review_services.scenario_screen(
        scenario_id=scenario.scenario_id, reviewer=person, decision="flag", note="Ambiguous."
    )
    return "scenario screening decision (scenario review pass 1) (SCN_SCHOOL_AGE_96400)"


def memory_review(person, admin):
    memory = MemoryFactory(character__key="CHAR_65", sequence=1)
    run = AuditRun.objects.create(settings_version=audit_settings_current())
    MemoryCase.objects.create(
        run=run,
        memory=memory,
        character=memory.character,
        status=MemoryCase.Status.FALSE_POSITIVE,
        decision=MemoryCase.Decision.FALSE_POSITIVE,
        decision_reason="A quoted line.",
        reviewer=person,
    )
    return f"memory audit review decision (confirm / false positive) ({memory.memory_id})"


def item_review(person, admin):
    item = make_item(
        ProfileVersionFactory(character__key="CHAR_66", number=1).character,
        ScenarioFactory(scenario_id="SCN_ADOLESCENCE_96600", stage="adolescence", age=15),
    )
    version = record_version(item, origin="import")
    McqReviewDecision.objects.create(
        item=item, item_version=version, reviewer=person, action="retain", note="Fine."
    )
    return "item review decision (MCQ item review) (Q_CHAR_66_SCN_ADOLESCENCE_96600)"


RECORDS = {
    "comparison judgment": (comparison_judgment, Role.PRIMARY_ANNOTATOR),
    "arbitration": (arbitration, Role.ARBITRATOR),
    "profile review": (profile_review, Role.PRIMARY_ANNOTATOR),
    "scenario review": (scenario_review, Role.SCENARIO_REVIEWER),
    "memory review": (memory_review, Role.MEMORY_REVIEWER),
    "item review": (item_review, Role.ADMIN),
}


@pytest.mark.parametrize("kind", list(RECORDS))
def test_a_person_with_a_construction_record_is_refused_with_the_reason(kind, team):
    small_final_set()
    make_record, earlier_role = RECORDS[kind]
    person = UserFactory(
        username=f"was-{kind.replace(' ', '-')}", roles=[earlier_role, Role.AUDIT_EXPERT]
    )
    if kind == "arbitration":
        # The adjudicator slot is checked as well as the experts'.
        person.groups.add(Group.objects.get(name=Role.AUDIT_ADJUDICATOR.value))
    expected = make_record(person, team["admin"])
    if kind == "arbitration":
        overrides = {"adjudicator": person}
    else:
        overrides = {"experts": [person, *team["experts"][1:]]}

    with pytest.raises(LabelAuditError) as refused:
        create(team, **overrides)

    messages = refused.value.messages
    named = [m for m in messages if person.username in m]
    assert len(named) == 1, messages
    assert named[0].startswith(f"Excluded (conflict of interest): {person.username} took part")
    assert expected in named[0]
    # Nobody else on the team is named, and nothing was written.
    assert not any(u.username in " ".join(messages) for u in team["experts"][1:])
    assert not LabelAudit.objects.exists()


def test_every_excluded_person_is_listed_with_all_their_records(team):
    small_final_set()
    a = UserFactory(
        username="busy-a", roles=[Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.AUDIT_EXPERT]
    )
    b = UserFactory(username="busy-b", roles=[Role.SCENARIO_REVIEWER, Role.AUDIT_EXPERT])
    comparison_judgment(a, team["admin"])
    arbitration(a, team["admin"])
    scenario_review(b, team["admin"])
    with pytest.raises(LabelAuditError) as refused:
        create(team, experts=[a, b, team["experts"][2]])
    text = "\n".join(refused.value.messages)
    assert "busy-a took part in construction: 1 × comparison judgment" in text
    assert "1 × arbitration decision (CHAR_62" in text
    assert "busy-b took part in construction: 1 × scenario screening decision" in text
    assert team["experts"][2].username not in text


def test_a_clean_team_is_accepted(team):
    small_final_set()
    audit = create(team)
    assert audit.experts.count() == 3
    assert audit.adjudicator == team["adjudicator"]


@pytest.mark.parametrize(
    "change, message",
    [
        ("two experts", "Choose exactly 3 different audit experts"),
        ("expert twice", "Choose exactly 3 different audit experts"),
        ("adjudicator is an expert", "cannot be both an expert and the adjudicator"),
        ("no expert role", "does not hold the audit expert role"),
        ("no adjudicator role", "does not hold the audit adjudicator role"),
        ("not an admin", "Only an admin"),
    ],
)
def test_the_team_is_three_experts_and_one_adjudicator(change, message, team):
    small_final_set()
    experts = team["experts"]
    overrides = {
        "two experts": {"experts": experts[:2]},
        "expert twice": {"experts": [experts[0], experts[0], experts[1]]},
        "adjudicator is an expert": {
            "adjudicator": experts[0],
        },
        "no expert role": {"experts": [UserFactory(username="plain"), *experts[1:]]},
        "no adjudicator role": {"adjudicator": UserFactory(username="plain-adj")},
        "not an admin": {"created_by": experts[0]},
    }[change]
    if change == "adjudicator is an expert":
        experts[0].groups.add(Group.objects.get(name=Role.AUDIT_ADJUDICATOR.value))
    with pytest.raises(LabelAuditError) as refused:
        create(team, **overrides)
    assert any(message in m for m in refused.value.messages), refused.value.messages
    assert not LabelAudit.objects.exists()
