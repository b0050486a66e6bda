"""The pipeline page's test benchmark: one round of every stage of Figure 2, each stage
with something waiting, built through the workflows' services where a person would act."""

from datetime import UTC, datetime

from adjudication.mcq.models import McqItem, McqItemVersion, McqScreening
from annotation.corpus.models import Character, Scenario
from annotation.profile_review.models import ProfileReviewCase
from annotation.scenario_review.services import scenario_screen
from audit.memory_quality.models import AuditRun, MemoryCase, TimelineEntry
from audit.memory_quality.services.configuration import audit_settings_create
from audit.reference_labels.models import (
    LabelAudit,
    LabelAuditExpert,
    LabelAuditItem,
    LabelSelection,
)
from core.deviations import record_deviation
from core.roles import Role
from evaluation.models import EvaluationPrediction, EvaluationRun, Setting
from humanbaseline.models import BaselineStudy, Participation, SubsetSelection
from tests.comparison.helpers import assign, judge, make_pair, people
from tests.factories import (
    CharacterFactory,
    MemoryFactory,
    ProfileVersionFactory,
    ScenarioFactory,
    UserFactory,
)

FROZEN = datetime(2026, 1, 5, tzinfo=UTC)


def _next_key() -> str:
    taken = set(Character.objects.values_list("key", flat=True))
    return next(f"CHAR_{n:02d}" for n in range(1, 100) if f"CHAR_{n:02d}" not in taken)


def _scenario():
    return ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{9000 + Scenario.objects.count()}")


def _item(character, scenario, status, *, screened=None):
    item = McqItem.objects.create(
        question_id=f"Q_{character.key}_{scenario.scenario_id}",
        character=character,
        scenario=scenario,
        stage=scenario.stage,
        correct_answer="B",
        status=status,
    )
    version = McqItemVersion.objects.create(
        item=item, number=1, correct_answer="B", options=[], origin="assembly"
    )
    if screened:
        McqScreening.objects.create(item=item, item_version=version, outcome=screened)
    return item, version


def build_benchmark() -> dict:
    """One round of every stage, each with something waiting; call it again to grow the
    benchmark (new characters, pairs, items, runs) with the same kinds of blockers."""
    team = people()
    admin, annotators, arbitrator = team["admin"], team["annotators"], team["arbitrator"]
    scenario_reviewers = [
        UserFactory(username=f"pl-scenario-{i}", roles=[Role.SCENARIO_REVIEWER]) for i in (1, 2)
    ]
    experts = [UserFactory(username=f"pl-expert-{i}", roles=[Role.AUDIT_EXPERT]) for i in (1, 2, 3)]
    adjudicator = UserFactory(username="pl-adjudicator", roles=[Role.AUDIT_ADJUDICATOR])

    # Profiles: one frozen (with memories), one with the reviewers, one with the senior.
    frozen = CharacterFactory(key=_next_key())
    ProfileVersionFactory(character=frozen, number=1, frozen_at=FROZEN)
    memories = [MemoryFactory(character=frozen, sequence=i) for i in (1, 2, 3)]
    for status in (ProfileReviewCase.Status.REVIEWING, ProfileReviewCase.Status.ADJUDICATING):
        character = CharacterFactory(key=_next_key())
        version = ProfileVersionFactory(character=character, number=1)
        ProfileReviewCase.objects.create(
            character=character, reviewed_version=version, status=status
        )

    # Memory audit: a finalized run keeping two of the three memories, and one finished
    # run not finalized with a case for the reviewer and one for the senior.
    settings_version = audit_settings_create(created_by=None)
    done = AuditRun.objects.create(
        settings_version=settings_version,
        character_keys=[frozen.key],
        status=AuditRun.Status.FINISHED,
        finalized_at=FROZEN,
    )
    for position, memory in enumerate(memories[:2]):
        TimelineEntry.objects.create(run=done, character=frozen, memory=memory, position=position)
    open_run = AuditRun.objects.create(
        settings_version=settings_version, character_keys=[frozen.key], status="finished"
    )
    for memory, status in zip(
        memories, (MemoryCase.Status.REVIEW, MemoryCase.Status.SENIOR), strict=False
    ):
        MemoryCase.objects.create(run=open_run, memory=memory, character=frozen, status=status)

    # Scenario review: one scenario screened by the first reviewer only.
    screened = _scenario()
    scenario_screen(
        scenario_id=screened.scenario_id,
        reviewer=scenario_reviewers[0],
        decision="approve",
        logically_consistent=True,
        psychologically_plausible=True,
        character_agnostic=True,
    )

    # Comparison: one pair awaiting the third annotator, one adopted unanimously, one
    # escalated, one not yet assigned.
    waiting = make_pair(key=_next_key(), scenario=_scenario())
    for assignment in list(assign(waiting, annotators, admin).values())[:2]:
        judge(assignment, family="claude")
    adopted = make_pair(key=_next_key(), scenario=_scenario())
    for assignment in assign(adopted, annotators, admin).values():
        judge(assignment, family="gpt")
    escalated = make_pair(key=_next_key(), scenario=_scenario())
    for i, assignment in enumerate(assign(escalated, annotators, admin).values()):
        judge(assignment, family="claude", rating="partial" if i else "as_is", guidance="Shorter.")
    make_pair(key=_next_key(), scenario=_scenario())

    # Items: final ones, a flagged one, one to complete.
    final, final_version = _item(frozen, _scenario(), McqItem.Status.FINAL, screened="passed")
    second, second_version = _item(frozen, _scenario(), McqItem.Status.FINAL)
    _item(frozen, _scenario(), McqItem.Status.FLAGGED, screened="flagged")
    _item(frozen, _scenario(), McqItem.Status.NEEDS_COMPLETION)

    # Label audit: the third expert has not selected; one item awaits the adjudicator.
    audit = LabelAudit.objects.create(seed=1, adjudicator=adjudicator, created_by=admin)
    for position, expert in enumerate(experts, start=1):
        LabelAuditExpert.objects.create(audit=audit, expert=expert, position=position)
    selecting = LabelAuditItem.objects.create(
        audit=audit,
        item=final,
        item_version=final_version,
        position=1,
        character_key=frozen.key,
        stage=final.stage,
    )
    for expert in experts[:2]:
        LabelSelection.objects.create(
            audit_item=selecting, expert=expert, choice="B", submitted_at=FROZEN
        )
    LabelAuditItem.objects.create(
        audit=audit,
        item=second,
        item_version=second_version,
        position=2,
        character_key=frozen.key,
        stage=second.stage,
        status=LabelAuditItem.Status.ADJUDICATING,
    )

    # Human baseline: a study with one participant still answering.
    selection = SubsetSelection.objects.create(
        seed=1, parameters={}, feasible=True, n_candidates=2, created_by=admin
    )
    study = BaselineStudy.objects.create(
        name=f"Pilot {selection.pk}",
        selection=selection,
        consent_version="v1",
        consent_text="You may stop at any time.",
        briefing="Read and choose.",
        retrieval_method="bm25",
        k=30,
        created_by=admin,
    )
    participant = UserFactory(roles=[Role.BASELINE_PARTICIPANT])
    Participation.objects.create(
        study=study,
        user=participant,
        status=Participation.Status.STARTED,
        enrolled_via="admin",
        order_seed=1,
    )

    # Evaluation: a run with a failed call.
    run = EvaluationRun.objects.create(
        label="offline-demo",
        setting=Setting.NO_RETRIEVAL,
        status=EvaluationRun.Status.FINISHED_WITH_FAILURES,
        created_by=admin,
    )
    EvaluationPrediction.objects.create(run=run, item=final, status="failed")
    EvaluationPrediction.objects.create(run=run, item=second, status="answered", choice="B")

    record_deviation(
        stage="generation",
        kind="gate_override",
        subject=f"{frozen.key} × scenario",
        rule="the character's memory audit is finalized",
        reason="Pilot run.",
        by=admin,
    )
    return {
        "admin": admin,
        "annotators": annotators,
        "arbitrator": arbitrator,
        "experts": experts,
        "frozen": frozen,
        "open_run": open_run,
        "audit": audit,
        "waiting": waiting,
        "study": study,
    }
