"""Records for the judge-versus-experts reports, written as the workflows write them:
item versions with a screening verdict and an item reviewer's decision; audit cases
with their flags, memory versions, classifier verdicts and the reviewers' decision."""

import random
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from adjudication.mcq.models import (
    McqItem,
    McqItemVersion,
    McqReviewDecision,
    McqScreening,
)
from adjudication.mcq.screening import RULE_IDS
from audit.memory_quality.models import (
    AuditRun,
    ClassifierResult,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
)
from audit.memory_quality.services.configuration import audit_settings_current
from core.roles import Role
from tests.factories import CharacterFactory, MemoryFactory, ScenarioFactory, UserFactory


@pytest.fixture
def role_groups(db):
    for role in Role:
        Group.objects.get_or_create(name=role.value)


@pytest.fixture
def person(role_groups):
    def make(*roles, **kwargs):
        return UserFactory(roles=list(roles), **kwargs)

    return make


def screened_item(n, *, rules: dict, reviewers_defect: bool | None, reviewer, outcome=None):
    """Item ``n`` with one version screened (flagged when any rule is not a pass, unless
    ``outcome`` says otherwise) and, unless ``reviewers_defect`` is None, a reviewer's
    decision on that version: retained (no defect) or removed (defect)."""
    character = CharacterFactory(key="CHAR_01")
    scenario = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_{700 + n}")
    item = McqItem.objects.create(
        question_id=f"Q_AGREE_{n:03d}",
        character=character,
        scenario=scenario,
        stage=scenario.stage,
        correct_answer="A",
        status=McqItem.Status.FLAGGED,
    )
    version = McqItemVersion.objects.create(
        item=item, number=1, correct_answer="A", options=[], origin="assembly"
    )
    flagged = any(s != "pass" for s in rules.values())
    screening = McqScreening.objects.create(
        item=item,
        item_version=version,
        status=McqScreening.Status.DONE,
        outcome=outcome or ("flagged" if flagged else "passed"),
        output={"checks": [{"rule_id": r, "status": s, "comment": ""} for r, s in rules.items()]},
        finished_at=timezone.now(),
    )
    if reviewers_defect is not None:
        McqReviewDecision.objects.create(
            item=item,
            item_version=version,
            screening=screening,
            reviewer=reviewer,
            action="remove" if reviewers_defect else "retain",
            note="test decision",
        )
    return item


def screener_records(reviewer, n=36, seed=5):
    """``n`` screened and reviewed versions with varied rule checks and decisions; returns
    [(screener flag, reviewers' defect, {rule: flagged})] as written."""
    rng = random.Random(seed)
    written = []
    for i in range(n):
        rules = {r: ("flag" if rng.random() < 0.2 else "pass") for r in RULE_IDS}
        if rng.random() < 0.1:
            rules["R4"] = "uncertain"
        flagged = any(s != "pass" for s in rules.values())
        defect = rng.random() < (0.75 if flagged else 0.2)
        screened_item(i, rules=rules, reviewers_defect=defect, reviewer=reviewer)
        written.append((flagged, defect, {r: s != "pass" for r, s in rules.items()}))
    return written


def _at(model, pk, moment):
    model.objects.filter(pk=pk).update(created_at=moment)


def audit_case(run, n, *, criteria, verdicts, decision, reviewer, base, repaired_after=None):
    """A decided case of ``run`` on a new memory: version 1 at ``base``, the initial flags
    on ``criteria`` just after, the classifier's ``verdicts`` ({criterion: verdict}) after
    that, and the reviewers' ``decision`` at the end. ``repaired_after`` (a number of
    minutes) puts a repair version, with flags of its re-audit on the same criteria,
    between the verdicts and the decision: the verdicts judged another text."""
    memory = MemoryFactory(character=CharacterFactory(key="CHAR_02"), sequence=500 + n)
    version = MemoryVersion.objects.create(memory=memory, number=1, origin="original", fields={})
    _at(MemoryVersion, version.pk, base)
    case = MemoryCase.objects.create(
        run=run,
        memory=memory,
        character=memory.character,
        status=MemoryCase.Status.REVIEW,
        initial_criteria=list(criteria),
    )
    for c in criteria:
        flag = MemoryFlag.objects.create(
            case=case, criterion=c, field="content_full", detail="test flag", audit_pass="initial"
        )
        MemoryFlag.objects.filter(pk=flag.pk).update(created_at=base + timedelta(minutes=1))
    for c, verdict in verdicts.items():
        result = ClassifierResult.objects.create(
            run=run, memory=memory, criterion=c, verdict=verdict
        )
        _at(ClassifierResult, result.pk, base + timedelta(minutes=2))
    decided_at = base + timedelta(minutes=10)
    if repaired_after is not None:
        at = base + timedelta(minutes=repaired_after)
        repair = MemoryVersion.objects.create(memory=memory, number=2, origin="repair", fields={})
        _at(MemoryVersion, repair.pk, at)
        MemoryFlag.objects.filter(case=case).update(current=False)
        for c in criteria:
            flag = MemoryFlag.objects.create(
                case=case,
                criterion=c,
                field="content_full",
                detail="re-audit",
                audit_pass="repair 1",
            )
            MemoryFlag.objects.filter(pk=flag.pk).update(created_at=at + timedelta(seconds=1))
    MemoryCase.objects.filter(pk=case.pk).update(
        decision=decision,
        decided_at=decided_at,
        reviewer=reviewer,
        status="senior" if decision == "confirmed" else "false_positive",
    )
    return case


@pytest.fixture
def audit_run(db):
    return AuditRun.objects.create(settings_version=audit_settings_current(), status="finished")


def classifier_records(run, reviewer, n=30, seed=11):
    """``n`` decided cases, each with one or two flagged criteria and the classifier's
    verdict on each; returns [(criterion, classifier flag, reviewers' defect)]."""
    rng = random.Random(seed)
    base = timezone.now() - timedelta(days=2)
    written = []
    for i in range(n):
        criteria = sorted(rng.sample([1, 2, 3, 5, 6], rng.choice([1, 2])))
        defect = rng.random() < 0.6
        verdicts = {}
        for c in criteria:
            agrees = rng.random() < 0.75
            flag = defect if agrees else not defect
            verdicts[c] = rng.choice(["confirms", "adds"]) if flag else "rejects"
            written.append((c, flag, defect))
        audit_case(
            run,
            i,
            criteria=criteria,
            verdicts=verdicts,
            decision="confirmed" if defect else "false_positive",
            reviewer=reviewer,
            base=base + timedelta(hours=i),
        )
    return written
