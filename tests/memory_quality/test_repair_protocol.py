"""App. B.6 as the paper states it: the repair sees the character's full specification
and the memory's generation constraints; each defect gets its own three targeted
attempts; a repair and the senior's edit are re-checked by the same checks that flag
(the pattern checks and, where configured, the LLM classifier, over real HTTP to the
fake provider server); a flag only the classifier raised goes through repair; and a
false-positive override takes effect only when the reviewing team has agreed."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.memory_quality import criteria
from audit.memory_quality.models import AuditError, MemoryCase, RepairAttempt
from audit.memory_quality.services.classifier import classifier_run_start
from audit.memory_quality.services.review import case_review_decide, case_senior_edit
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from core.tasks import enqueue_on_commit
from llm import ProviderConfig
from llm.testing.fact_check import other_requests
from tests.factories import CharacterFactory, ProfileVersionFactory

from .conftest import CLEAN, CLEAN_REWRITE, CONTEXT, DRIFT, FAITHFUL_REWRITE, hand_written

pytestmark = pytest.mark.django_db

STILL_DRIFTING = CLEAN_REWRITE + " Years later it still stung."
# A rewrite the pattern checks pass and the classifier of the tests calls drift.
CLASSIFIER_ONLY_DRIFT = CLEAN_REWRITE.replace("That night", "It haunted me forever. That night")


@pytest.fixture
def classifier_model(settings, fake_server):
    settings.HEARTBENCH_AUDIT_CLASSIFIER_PROVIDER = ProviderConfig(
        kind="anthropic",
        model="fake-classifier",
        base_url=fake_server.base_url("anthropic"),
        timeout=5.0,
        max_retries=1,
    )
    return fake_server


def haunted_is_drift(request):
    """The classifier of these tests: criterion 1 is a defect when the memory says
    "haunted me forever"; nothing else is ever a defect."""
    system = request.system
    user = "\n".join(text for role, text in request.turns() if role == "user")
    memory = json.loads(user.split("## The memory", 1)[1])
    quote = "It haunted me forever."
    if criteria.CRITERIA[criteria.OMNISCIENT] in system and quote in memory["content_full"]:
        return {"defect": True, "evidence": quote, "rationale": "long-term impact"}
    return {"defect": False, "evidence": "", "rationale": "in the moment"}


def run_audit(admin, capture):
    with capture(execute=True):
        run = audit_run_start(created_by=admin)
        enqueue_on_commit("audit.run_memory_audit", run.pk, what=f"Audit run {run.pk}")
    run.refresh_from_db()
    return run


def case_page(user, case) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("audit:case-detail", args=[case.pk])).content.decode()


# --- 1. The repair sees the character and the generation constraints -------------------


def test_the_repair_prompt_carries_the_frozen_profile_and_the_generation_constraints(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    char = CharacterFactory(key="CHAR_01")
    patterns = [f"Checks the stove {i} times before leaving the flat" for i in range(1, 9)]
    ProfileVersionFactory(
        character=char,
        number=1,
        construction_label="N_HIGH anxious conservator",
        occupation="Archive conservator",
        neuroticism=0.95,
        core_patterns=patterns,
        self_value_logic="If I foresee every failure, nobody can blame me.",
        description="A careful person who reads each situation for what could go wrong.",
        frozen_at=timezone.now(),
    )
    ProfileVersionFactory(character=char, number=2, occupation="Unfrozen draft occupation")
    hand_written(
        char,
        content_full=DRIFT,
        source="generated: run 4, batch 2, slot 7, memory prompt v1, fake-memory",
    )
    repair_model.enqueue({"content_full": FAITHFUL_REWRITE})
    run_audit(admin_user, django_capture_on_commit_callbacks)

    [request] = other_requests(repair_model.requests)
    system = request.system
    for text in (
        "N_HIGH anxious conservator",
        "Archive conservator",
        "N 0.95",
        "If I foresee every failure, nobody can blame me.",
        "A careful person who reads each situation for what could go wrong.",
        *patterns,
        "profile version 1, frozen",
        "Target age: 9",
        "School age (ages 6-11)",
        "generated: run 4, batch 2, slot 7, memory prompt v1",
        "sensory detail",
        "strictly first-person in the moment",
    ):
        assert text in system, text
    assert "Unfrozen draft occupation" not in system


# --- 2. Up to three attempts per defect ----------------------------------------------------


def test_each_defect_gets_its_own_three_attempts(
    admin_user, person, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT, context=" ".join(["rain"] * 40))
    repair_model.enqueue(
        {"content_full": STILL_DRIFTING},
        {"content_full": FAITHFUL_REWRITE + " From then on I carried a book."},
        {"content_full": FAITHFUL_REWRITE},
        {"context": CONTEXT},
    )
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.initial_criteria == [1, 3]
    assert case.status == MemoryCase.Status.REPAIRED
    attempts = list(RepairAttempt.objects.filter(case=case).order_by("number"))
    assert [(a.criteria, a.fields, a.passed) for a in attempts] == [
        ([1], ["content_full"], False),
        ([1], ["content_full"], False),
        ([1], ["content_full"], True),
        ([3], ["context"], True),
    ]
    memory.refresh_from_db()
    assert (memory.content_full, memory.context) == (FAITHFUL_REWRITE, CONTEXT)
    page = case_page(person(Role.MEMORY_REVIEWER), case)
    defects = page.split('data-testid="repair-defects"', 1)[1].split("</ul>", 1)[0]
    assert 'data-criterion="1"' in defects and 'data-criterion="3"' in defects
    assert "3 of 3 attempts" in defects and "1 of 3 attempts" in defects


def test_a_defect_still_flagged_after_its_attempts_goes_to_a_person(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    hand_written(content_full=DRIFT, context=" ".join(["rain"] * 40))
    repair_model.enqueue(*[{"content_full": STILL_DRIFTING}] * 3)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REVIEW and case.escalated
    assert "criterion 1 on the full account" in case.repair_note
    assert len(repair_model.requests) == 3  # the other defect is not tried in vain


# --- 3. The re-check asks the classifier too -----------------------------------------------


def test_the_re_check_of_a_repair_asks_the_classifier_too(
    admin_user, repair_model, classifier_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    repair_model.enqueue(
        {"content_full": CLASSIFIER_ONLY_DRIFT}, {"content_full": CLEAN}, route="openai"
    )
    classifier_model.responder = haunted_is_drift
    run = run_audit(admin_user, django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    first, second = case.attempts.order_by("number")
    assert not first.passed
    assert [(f["criterion"], f["source"]) for f in first.audit_findings] == [(1, "classifier")]
    assert second.passed and case.status == MemoryCase.Status.REPAIRED
    # Each re-check asked the classifier about every criterion in use.
    assert len(classifier_model.requests_for("anthropic")) == 2 * len(criteria.CRITERIA)
    memory.refresh_from_db()
    assert memory.content_full == CLEAN


# --- 4. Classifier flags go through repair --------------------------------------------------


def test_a_flag_only_the_classifier_raised_goes_through_repair(
    admin_user, repair_model, classifier_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=CLEAN + " It haunted me forever.")
    run = audit_run_start(created_by=admin_user)
    audit_run_execute(run_id=run.pk)
    assert not MemoryCase.objects.filter(run=run).exists()
    classifier_model.responder = haunted_is_drift
    repair_model.enqueue({"content_full": CLEAN}, route="openai")
    with django_capture_on_commit_callbacks(execute=True):
        classifier_run_start(run_id=run.pk, criterion=criteria.OMNISCIENT, actor=admin_user)

    case = MemoryCase.objects.get(run=run, memory=memory)
    assert case.status == MemoryCase.Status.REPAIRED and not case.escalated
    [attempt] = case.attempts.all()
    assert attempt.passed and attempt.criteria == [1]
    assert "LLM classifier" in attempt.user_prompt
    memory.refresh_from_db()
    assert memory.content_full == CLEAN


# --- 5. A false positive needs the team ------------------------------------------------------


@pytest.fixture
def escalated_case(admin_user, eager_celery, django_capture_on_commit_callbacks):
    hand_written(content_full=DRIFT)
    run = run_audit(admin_user, django_capture_on_commit_callbacks)
    return MemoryCase.objects.get(run=run)


def test_a_false_positive_override_takes_effect_when_the_team_agreed(escalated_case, person):
    first, second, third = (
        person(Role.MEMORY_REVIEWER, username=name) for name in ("rev-ana", "rev-bo", "rev-cy")
    )

    def agree(reviewer):
        return case_review_decide(
            case_id=escalated_case.pk,
            reviewer=reviewer,
            decision="false_positive",
            reason=f"{reviewer.username}: a line read aloud from a novel.",
        )

    assert agree(first).status == MemoryCase.Status.REVIEW
    with pytest.raises(AuditError, match="already agreed"):
        agree(first)
    page = case_page(second, escalated_case)
    block = page.split('data-testid="override-agreements"', 1)[1].split("</section>", 1)[0]
    assert "rev-ana" in block and "1 of the team of 3" in block
    assert '<strong data-testid="agreements-needed">2 more</strong>' in block
    assert agree(second).status == MemoryCase.Status.REVIEW
    assert agree(third).status == MemoryCase.Status.FALSE_POSITIVE
    block = case_page(first, escalated_case).split('data-testid="override-agreements"', 1)[1]
    assert all(name in block.split("</section>", 1)[0] for name in ("rev-ana", "rev-bo", "rev-cy"))


def test_the_team_size_is_a_setting(escalated_case, person, settings):
    settings.HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM = 2
    first, second = person(Role.MEMORY_REVIEWER), person(Role.MEMORY_REVIEWER)
    for reviewer, status in ((first, "review"), (second, "false_positive")):
        case = case_review_decide(
            case_id=escalated_case.pk, reviewer=reviewer, decision="false_positive", reason="ok"
        )
        assert case.status == status


# --- 6. The senior's edit is re-audited by the same checks ----------------------------------


def test_the_senior_edit_is_re_audited_by_the_classifier_before_it_is_accepted(
    escalated_case, person, classifier_model
):
    reviewer, senior = person(Role.MEMORY_REVIEWER), person(Role.ARBITRATOR)
    case_review_decide(
        case_id=escalated_case.pk, reviewer=reviewer, decision="confirmed", reason=""
    )
    classifier_model.responder = haunted_is_drift
    memory = escalated_case.memory
    case, findings = case_senior_edit(
        case_id=escalated_case.pk,
        editor=senior,
        context=memory.context,
        content_summary=memory.content_summary,
        content_full=CLASSIFIER_ONLY_DRIFT,
    )
    assert case.status == MemoryCase.Status.SENIOR
    [flag] = case.flags.filter(current=True)
    assert (flag.criterion, flag.source, flag.audit_pass) == (1, "classifier", "senior edit 1")
    page = case_page(senior, case)
    outcome = page.split('data-testid="edit-reaudits"', 1)[1].split("</ol>", 1)[0]
    assert "still flagged: not accepted" in outcome and "(LLM classifier)" in outcome
    case, findings = case_senior_edit(
        case_id=escalated_case.pk,
        editor=senior,
        context=memory.context,
        content_summary=memory.content_summary,
        content_full=CLEAN,
    )
    assert findings == [] and case.status == MemoryCase.Status.REVISED
    outcome = case_page(senior, case).split('data-testid="edit-reaudits"', 1)[1]
    assert "passed: accepted" in outcome.split("</ol>", 1)[0]
    assert len(classifier_model.requests) == 2 * len(criteria.CRITERIA)
