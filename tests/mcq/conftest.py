"""Fixtures of the MCQ tests: one scenario with hand-written references of seven
characters (a near-duplicate of the key, an off-scenario response and four plausible
distractors), role groups, the fake provider server as the judge, eager Celery."""

import pytest
from django.contrib.auth.models import Group

from adjudication.arbitration.models import ReferenceResponse
from core.roles import Role
from llm import ProviderConfig
from llm.testing.fake_server import FakeProviderServer
from tests.factories import CharacterFactory, ProfileVersionFactory, ScenarioFactory, UserFactory

KEY = (
    "I stay home to water the class plants because I promised my teacher, and I tell Mom "
    "I will skip the amusement park trip this weekend."
)
NEAR_DUPLICATE = (
    "I stay home to water the class plants because I promised my teacher, and I tell Mom "
    "I will skip the amusement park trip this weekend too."
)
OFF_SCENARIO = "I sign up for a pottery evening course downtown and buy a new bicycle helmet."
PLAUSIBLE = {
    "CHAR_04": "I go to the amusement park with Mom and ask a neighbour to water the plants "
    "while I am away.",
    "CHAR_05": "I call my teacher to ask whether someone else can care for the plants, then "
    "decide about the trip.",
    "CHAR_06": "I pretend to be sick so Mom cancels the park trip, and I secretly visit the "
    "classroom plants.",
    "CHAR_07": "I cry and refuse to choose, asking Mom to decide about the park and the "
    "plants for me.",
}


def reference(character_key, scenario, text):
    character = CharacterFactory(key=character_key)
    return ReferenceResponse.objects.create(
        character=character,
        scenario=scenario,
        summary=f"{character_key} thinks it over.",
        final_decision=text,
        decision_type=ReferenceResponse.DecisionType.UNANIMOUS,
    )


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
def scenario(db):
    return ScenarioFactory(scenario_id="SCN_SCHOOL_AGE_1")


@pytest.fixture
def references(scenario):
    """{character key: reference}; CHAR_01 is the target."""
    ProfileVersionFactory(character=CharacterFactory(key="CHAR_01"), number=1)
    refs = {
        "CHAR_01": reference("CHAR_01", scenario, KEY),
        "CHAR_02": reference("CHAR_02", scenario, NEAR_DUPLICATE),
        "CHAR_03": reference("CHAR_03", scenario, OFF_SCENARIO),
    }
    for key, text in PLAUSIBLE.items():
        refs[key] = reference(key, scenario, text)
    return refs


@pytest.fixture
def fake_server():
    with FakeProviderServer() as server:
        yield server


def judge_config(server, kind="anthropic"):
    return ProviderConfig(
        kind=kind,
        model="fake-judge",
        api_key="test-key",
        base_url=server.base_url(kind),
        timeout=5.0,
        max_retries=1,
        backoff_base=0.01,
        backoff_cap=0.05,
    )


@pytest.fixture
def judge(settings, fake_server):
    settings.HEARTBENCH_MCQ_SCREENER_PROVIDER = judge_config(fake_server)
    return fake_server


@pytest.fixture
def eager_celery():
    from heartbench_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


def verdict(item, *, best=None, status="unique_best", checks=None, issues=None, review=None):
    """A D.3.1 output for ``item``; by default a clean pass of its key."""
    best = item.correct_answer if best is None and status == "unique_best" else best
    checks = checks or {}
    rows = [
        {"rule_id": r, "status": checks.get(r, "pass"), "comment": f"{r} comment"}
        for r in ("R1", "R2", "R3", "R4", "R5", "R6")
    ]
    if issues is None:
        issues = [
            {
                "rule_id": r,
                "option_ids": [],
                "description": f"concern under {r}",
                "evidence_anchors": [],
                "missing_information": "which plants need water on Saturday",
                "impact": "the key may not be the best supported",
                "suggested_human_action": "revise the distractor",
            }
            for r, s in checks.items()
            if s != "pass"
        ]
    out = {
        "item_id": item.question_id,
        "item_version": item.version,
        "selection": {
            "status": status,
            "best_option": best if status == "unique_best" else None,
            "tied_options": ["A", "B"] if status == "multiple_best" else [],
            "justification": "grounded in the profile",
        },
        "option_assessments": [
            {
                "option_id": label,
                "assessment": f"option {label} fits the scene",
                "evidence_anchors": [
                    {
                        "input_path": "scenario.context",
                        "excerpt": "trusted you with the class plants",
                    }
                ],
            }
            for label in "ABCD"
        ],
        "checks": rows,
        "issues": issues,
    }
    if review is None:
        review = status != "unique_best" or best != item.correct_answer or bool(checks)
    out["needs_human_review"] = review
    return out


def scenario_with_references(n: int):
    """Scenario SCN_SCHOOL_AGE_1xx with the target CHAR_01 and the four plausible others."""
    scenario = ScenarioFactory(scenario_id=f"SCN_SCHOOL_AGE_1{n:02d}")
    target = reference("CHAR_01", scenario, KEY)
    for key, text in PLAUSIBLE.items():
        reference(key, scenario, text)
    return target


def flag(item, **verdict_changes):
    """Record a flagged screening of ``item`` as the judge would (no HTTP: page tests)."""
    from adjudication.mcq.models import McqItem, McqItemVersion, McqScreening, McqScreeningRun

    output = verdict(item, **({"checks": {"R2": "flag"}} | verdict_changes))
    run = McqScreeningRun.objects.create(status=McqScreeningRun.Status.FINISHED, note="flag()")
    McqScreening.objects.create(
        run=run,
        status=McqScreening.Status.DONE,
        item=item,
        item_version=McqItemVersion.objects.get(item=item, number=item.version),
        outcome=McqScreening.Outcome.FLAGGED,
        output=output,
        needs_human_review=True,
        attempts=1,
        judge_model="zqx-claude-provenance-4471",
        judge_family="anthropic",
    )
    McqItem.objects.filter(pk=item.pk).update(status=McqItem.Status.FLAGGED)
    item.refresh_from_db()
    return item
