"""Seed 000 App. D.4: the reference-label audit team "did not participate in benchmark
construction". Every act that shaped the benchmark bars a person from the team, including
the ones the check used to miss (issue #35): an override vote in the memory audit that was
not the last one, a candidate text cleaned by an admin, a drafting job, a memory
generation run or an assembly run launched, and a comparison assignment never submitted."""

import pytest
from django.contrib.auth.models import Group

from adjudication.mcq.services.item_assembly import mcq_assembly_run_start
from annotation.candidate_screening.services import flag_clean, screen_candidates
from annotation.character_drafting.models import DraftingJob
from annotation.character_drafting.services.jobs import drafting_prompt_current
from annotation.memory_generation.models import MemoryRun
from annotation.memory_generation.prompts import latest_prompt
from audit.memory_quality.models import AuditRun, MemoryCase
from audit.memory_quality.services.configuration import audit_settings_current
from audit.memory_quality.services.review import case_review_decide
from audit.reference_labels import services
from audit.reference_labels.models import LabelAudit, LabelAuditError
from core.conflicts import team_member_conflict
from core.roles import Role
from tests.comparison.helpers import assign, judge, make_pair
from tests.factories import MemoryFactory, UserFactory

from .conftest import small_final_set

pytestmark = pytest.mark.django_db


def override_voter(person, admin):
    """The first of the three reviewers who agreed a flag is a false positive: the case
    names only the last one as its reviewer."""
    memory = MemoryFactory(character__key="CHAR_81", sequence=1)
    run = AuditRun.objects.create(settings_version=audit_settings_current())
    case = MemoryCase.objects.create(
        run=run, memory=memory, character=memory.character, status=MemoryCase.Status.REVIEW
    )
    others = [UserFactory(username=f"coi-voter-{n}", roles=[Role.MEMORY_REVIEWER]) for n in (2, 3)]
    for reviewer in (person, *others):
        case_review_decide(
            case_id=case.pk, reviewer=reviewer, decision="false_positive", reason="A quote."
        )
    case.refresh_from_db()
    assert case.status == MemoryCase.Status.FALSE_POSITIVE and case.reviewer == others[-1]
    return f"memory audit override vote (false positive) ({memory.memory_id})"


def candidate_cleaner(person, admin):
    pair = make_pair(key="CHAR_82")
    leaky = pair.candidates.get(family="gpt")
    leaky.final_decision = "As an AI model by OpenAI, I would stay behind."
    leaky.save(update_fields=["final_decision"])
    (flag,) = screen_candidates(candidates=[leaky], user=admin)
    flag_clean(
        flag_id=flag.pk,
        user=person,
        fields={"final_decision": "I would stay behind."},
        reason="Removed the model's self-reference.",
    )
    return f"candidate text cleaned (identity-leak screening) (CHAR_82 {pair.scenario.scenario_id})"


def drafting_launcher(person, admin):
    job = DraftingJob.objects.create(
        design=DraftingJob.Design.CUSTOM,
        provider="openai",
        model="m",
        prompt=drafting_prompt_current(),
        max_attempts=3,
        created_by=person,
    )
    return f"character drafting job launched (job {job.pk})"


def memory_generation_launcher(person, admin):
    run = MemoryRun.objects.create(prompt=latest_prompt(), created_by=person)
    return f"memory generation run launched (run {run.pk})"


def assembly_launcher(person, admin):
    run = mcq_assembly_run_start(started_by=person, dispatch=False)
    return f"MCQ assembly run started (run {run.pk})"


def unsubmitted_assignment(person, admin):
    pair = make_pair(key="CHAR_84")
    others = [
        UserFactory(username=f"coi-judge-{n}", roles=[Role.PRIMARY_ANNOTATOR]) for n in (1, 2)
    ]
    assignments = assign(pair, [person, *others], admin)
    for other in others:
        judge(assignments[other.pk], family="claude")
    return (
        "comparison assignment not submitted (blinded three-candidate comparison) "
        f"(CHAR_84 {pair.scenario.scenario_id})"
    )


ACTS = {
    "override voter other than the last": (override_voter, Role.MEMORY_REVIEWER),
    "admin who cleaned a candidate text": (candidate_cleaner, Role.ADMIN),
    "launched a drafting job": (drafting_launcher, Role.ADMIN),
    "launched a memory generation run": (memory_generation_launcher, Role.ADMIN),
    "launched an assembly run": (assembly_launcher, Role.ADMIN),
    "unsubmitted comparison assignment": (unsubmitted_assignment, Role.PRIMARY_ANNOTATOR),
}


@pytest.mark.parametrize("slot", ["expert", "adjudicator"])
@pytest.mark.parametrize("act", list(ACTS))
def test_every_construction_act_excludes_the_person_from_the_audit_team(act, slot, team):
    """Seed 000 App. D.4: the audit team "did not participate in benchmark construction";
    each of these acts is participation, so the admin cannot put its author on the team."""
    small_final_set()
    make_record, earlier_role = ACTS[act]
    person = UserFactory(
        username=f"did-{act.split()[1]}-{slot}",
        roles=[earlier_role, Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR],
    )
    expected = make_record(person, team["admin"])
    if slot == "expert":
        overrides = {"experts": [person, *team["experts"][1:]]}
    else:
        overrides = {"adjudicator": person}

    with pytest.raises(LabelAuditError) as refused:
        services.label_audit_create(
            created_by=team["admin"],
            experts=overrides.get("experts", team["experts"]),
            adjudicator=overrides.get("adjudicator", team["adjudicator"]),
            seed=3,
        )

    (named,) = [m for m in refused.value.messages if person.username in m]
    assert named.startswith(f"Excluded (conflict of interest): {person.username} took part")
    assert expected in named, named
    assert not LabelAudit.objects.exists()


@pytest.mark.parametrize("act", list(ACTS))
def test_a_team_member_who_did_a_construction_act_is_refused_each_audit_act(act, team):
    """Seed 000 App. D.4: the check that refuses an expert's or the adjudicator's every
    act (a record made after the team was chosen) counts the same acts."""
    make_record, earlier_role = ACTS[act]
    person = team["experts"][0]
    person.groups.add(Group.objects.get(name=earlier_role.value))
    assert team_member_conflict(person) is None
    expected = make_record(person, team["admin"])

    refusal = team_member_conflict(person)

    assert refusal is not None and refusal.startswith("Refused (conflict of interest)")
    assert expected in refusal and "App. D.4" in refusal
