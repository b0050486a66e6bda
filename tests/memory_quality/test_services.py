"""The audit's workflow on the database: a run over hand-written memories, the repair
loop against the fake provider server over real HTTP, manual review, the senior's edit,
and the post-audit finalization."""

import pytest

from audit.memory_quality.models import (
    AuditError,
    AuditRun,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    RepairAttempt,
)
from audit.memory_quality.selectors import audit_outcomes
from audit.memory_quality.services.configuration import (
    audit_settings_create,
    audit_settings_current,
)
from audit.memory_quality.services.finalize import audit_run_finalize
from audit.memory_quality.services.repair_loop import repair_attempt_run
from audit.memory_quality.services.review import case_review_decide, case_senior_edit
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from core.tasks import enqueue_on_commit
from tests.factories import CharacterFactory

from .conftest import CLEAN, CLEAN_REWRITE, DRIFT, FAITHFUL_REWRITE, hand_written

pytestmark = pytest.mark.django_db


def run_audit(admin, *, capture, **kwargs):
    with capture(execute=True):
        run = audit_run_start(created_by=admin, **kwargs)
        enqueue_on_commit("audit.run_memory_audit", run.pk, what=f"Audit run {run.pk}")
    run.refresh_from_db()
    return run


def test_a_run_flags_each_criterion_and_records_its_settings_version(
    admin_user, eager_celery, django_capture_on_commit_callbacks
):
    char = CharacterFactory(key="CHAR_01")
    clean = hand_written(char, sequence=1)
    drift = hand_written(char, sequence=2, event_age=15, content_full=DRIFT)
    adult = hand_written(
        char,
        sequence=3,
        event_age=11,
        content_full=CLEAN_REWRITE + " Looking back, I now understand it was fear.",
    )
    long_context = hand_written(
        char,
        sequence=4,
        event_age=30,
        context=" ".join(["detail"] * 31),
        content_full="A meeting at the office. " * 20,
    )
    too_long = hand_written(char, sequence=5, event_age=40, content_full="I walked on. " * 800)
    inflated = hand_written(
        char,
        sequence=6,
        event_age=20,
        emotion_intensity=0.2,
        content_full="I made tea and felt the dysregulation of my core schema. " * 5,
    )
    duplicate = hand_written(char, sequence=7, event_age=10, content_full=CLEAN + " I waited.")
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)

    assert run.status == AuditRun.Status.FINISHED
    assert run.memory_done == run.memory_total == 7
    assert run.settings_version.number == 1
    cases = {c.memory_id: c for c in MemoryCase.objects.filter(run=run)}
    assert clean.pk not in cases
    expected = {
        drift.pk: [1],
        adult.pk: [2],
        long_context.pk: [3],
        too_long.pk: [5],
        inflated.pk: [6],
        duplicate.pk: [4],
    }
    assert {pk: c.initial_criteria for pk, c in cases.items()} == expected
    # No repair model is configured: everything flagged waits for a reviewer.
    assert {c.status for c in cases.values()} == {MemoryCase.Status.REVIEW}
    assert MemoryVersion.objects.filter(number=1, origin="original").count() == 6
    dup_flag = MemoryFlag.objects.get(case=cases[duplicate.pk])
    assert dup_flag.related_memory_id == clean.memory_id
    outcomes = audit_outcomes(run=run)
    assert outcomes.total["memories"] == 7
    assert outcomes.total["passed_initial"] == 1
    assert outcomes.total["escalated"] == 6
    assert {r["criterion"]: r["flags"] for r in outcomes.criteria_rows} == {
        1: 1,
        2: 1,
        3: 1,
        4: 1,
        5: 1,
        6: 1,
    }


def test_settings_versions_are_new_rows_and_runs_keep_theirs(admin_user):
    first = audit_settings_current()
    run = audit_run_start(created_by=admin_user)
    second = audit_settings_create(created_by=admin_user, note="stricter", duplicate_threshold=0.8)
    run.refresh_from_db()
    assert (first.number, second.number) == (1, 2)
    assert run.settings_version == first
    first.refresh_from_db()
    assert first.duplicate_threshold == 0.85 and second.duplicate_threshold == 0.8
    with pytest.raises(AuditError):
        audit_settings_create(created_by=admin_user, duplicate_threshold=1.5)


def test_only_an_admin_changes_settings_or_starts_a_run(person):
    reviewer = person(Role.MEMORY_REVIEWER)
    with pytest.raises(AuditError):
        audit_settings_create(created_by=reviewer, note="x")
    with pytest.raises(AuditError):
        audit_run_start(created_by=reviewer)


def test_a_finished_run_is_not_audited_twice(
    admin_user, eager_celery, django_capture_on_commit_callbacks
):
    hand_written(content_full=DRIFT)
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)
    audit_run_execute(run_id=run.pk)
    assert MemoryCase.objects.filter(run=run).count() == 1
    assert MemoryFlag.objects.filter(case__run=run).count() == 1


# --- The repair loop against the fake provider server -------------------------------------


def test_repair_succeeds_on_the_second_attempt(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    still_drifting = FAITHFUL_REWRITE + " I didn't know then how much it mattered."
    repair_model.enqueue({"content_full": still_drifting}, {"content_full": FAITHFUL_REWRITE})
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REPAIRED
    first, second = RepairAttempt.objects.filter(case=case).order_by("number")
    assert (first.passed, second.passed) == (False, True)
    assert first.fields == ["content_full"] and first.criteria == [1]
    assert first.audit_findings[0]["criterion"] == 1
    assert "Years later" in first.user_prompt
    assert "strictly first-person in the moment" in first.system_prompt
    assert "didn't know then" in second.user_prompt  # the previous failure is fed back
    assert first.output == {"content_full": still_drifting}
    assert (first.call.provider, first.call.model) == ("openai", "fake-repair")
    assert (first.call.kind, first.call.run_id, first.call.ok) == ("repair", run.pk, True)
    unit = run.units.get(character=case.character)  # the calls' tokens count to the unit
    check = second.fact_check  # the kept rewrite was fact-checked (on by default)
    assert check.status == "passed" and check.missing_count == 0
    calls = (first.call, second.call, check.extract_call, check.check_call)
    assert unit.tokens_in == sum(call.tokens_in for call in calls) > 0
    memory.refresh_from_db()
    assert memory.content_full == FAITHFUL_REWRITE
    # Only the defective field was regenerated; the versions are kept.
    versions = list(MemoryVersion.objects.filter(memory=memory).order_by("number"))
    assert [v.origin for v in versions] == ["original", "repair"]
    assert versions[0].fields["content_full"] == DRIFT
    assert versions[1].repair_attempt == second
    assert versions[1].fields["context"] == versions[0].fields["context"]
    sent = repair_model.requests
    assert len(sent) == 4  # two repairs, then the kept one's fact extraction and check
    assert set(sent[0].body["response_format"]["json_schema"]["schema"]["properties"]) == {
        "content_full"
    }
    assert not case.flags.filter(current=True).exists()
    outcomes = audit_outcomes(run=run)
    assert outcomes.total["passed_after_rewriting"] == 1 and outcomes.total["escalated"] == 0


def test_three_failed_repairs_send_the_memory_to_the_manual_queue(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    memory = hand_written(content_full=DRIFT)
    repair_model.enqueue(
        {"content_full": CLEAN_REWRITE + " Years later it still stung."},
        {"content_full": CLEAN_REWRITE + " From then on I always waited outside."},
        {"content_full": CLEAN_REWRITE + " Later I learned she had missed the bus."},
    )
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)

    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REVIEW and case.escalated
    assert "3 automated repair attempt" in case.repair_note
    assert [a.defect_attempt for a in case.attempts.order_by("number")] == [1, 2, 3]
    attempts = list(case.attempts.order_by("number"))
    assert [a.passed for a in attempts] == [False, False, False]
    assert len(repair_model.requests) == 3
    memory.refresh_from_db()
    assert memory.content_full == DRIFT  # failed rewrites are kept on the attempts only
    assert case.flags.filter(current=True, criterion=1).exists()
    # A redelivered repair task changes nothing.
    assert repair_attempt_run(case_id=case.pk) is None
    assert case.attempts.count() == 3


def test_a_failing_provider_counts_as_a_failed_attempt(
    admin_user, repair_model, eager_celery, django_capture_on_commit_callbacks
):
    from llm.testing.replies import http_error

    hand_written(content_full=DRIFT)
    repair_model.enqueue(http_error(400), http_error(400), http_error(400))
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)
    case = MemoryCase.objects.get(run=run)
    assert case.status == MemoryCase.Status.REVIEW
    assert all(a.error.startswith("client_error") for a in case.attempts.all())


# --- Manual review and the senior's edit ----------------------------------------------


@pytest.fixture
def escalated_case(admin_user, eager_celery, django_capture_on_commit_callbacks):
    hand_written(content_full=DRIFT)
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)
    return MemoryCase.objects.get(run=run)


def test_confirm_then_senior_edit_then_re_audit_passes(escalated_case, person):
    reviewer, senior = person(Role.MEMORY_REVIEWER), person(Role.ARBITRATOR)
    with pytest.raises(AuditError):
        case_review_decide(
            case_id=escalated_case.pk, reviewer=senior, decision="confirmed", reason=""
        )
    case_review_decide(
        case_id=escalated_case.pk, reviewer=reviewer, decision="confirmed", reason=""
    )
    escalated_case.refresh_from_db()
    assert escalated_case.status == MemoryCase.Status.SENIOR
    memory = escalated_case.memory
    # An edit that keeps a marker stays with the senior, with the new flags.
    case, findings = case_senior_edit(
        case_id=escalated_case.pk,
        editor=senior,
        context=memory.context,
        content_summary=memory.content_summary,
        content_full=CLEAN + " From then on I carried a book.",
    )
    assert case.status == MemoryCase.Status.SENIOR and [f.criterion for f in findings] == [1]
    assert case.flags.get(current=True).audit_pass == "senior edit 1"
    case, findings = case_senior_edit(
        case_id=escalated_case.pk,
        editor=senior,
        context=memory.context,
        content_summary=memory.content_summary,
        content_full=CLEAN,
        note="Removed the post-hoc sentence.",
    )
    assert findings == [] and case.status == MemoryCase.Status.REVISED
    memory.refresh_from_db()
    assert memory.content_full == CLEAN
    origins = list(memory.audit_versions.order_by("number").values_list("origin", flat=True))
    assert origins == ["original", "senior_edit", "senior_edit"]
    assert audit_outcomes(run=case.run).total["revised_by_senior"] == 1


def test_a_false_positive_needs_a_reason(escalated_case, person, settings):
    settings.HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM = 1  # a team of one: the reason alone
    reviewer = person(Role.MEMORY_REVIEWER)
    with pytest.raises(AuditError, match="reason"):
        case_review_decide(
            case_id=escalated_case.pk, reviewer=reviewer, decision="false_positive", reason=" "
        )
    case_review_decide(
        case_id=escalated_case.pk,
        reviewer=reviewer,
        decision="false_positive",
        reason="The narrator is an adult recalling aloud in dialogue.",
    )
    escalated_case.refresh_from_db()
    assert escalated_case.status == MemoryCase.Status.FALSE_POSITIVE
    assert audit_outcomes(run=escalated_case.run).total["false_positive"] == 1
    with pytest.raises(AuditError, match="not awaiting review"):
        case_review_decide(
            case_id=escalated_case.pk, reviewer=reviewer, decision="confirmed", reason=""
        )


def test_the_senior_cannot_edit_before_a_reviewer_confirms(escalated_case, person):
    with pytest.raises(AuditError, match="only confirmed defects"):
        case_senior_edit(
            case_id=escalated_case.pk,
            editor=person(Role.ARBITRATOR),
            context="x",
            content_summary="y",
            content_full="z",
        )


# --- After the audit ----------------------------------------------------------------------


def test_finalize_deduplicates_orders_and_sanitizes(
    admin_user, person, eager_celery, django_capture_on_commit_callbacks, settings
):
    settings.HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM = 1
    char = CharacterFactory(key="CHAR_01")
    audit_settings_create(
        created_by=admin_user, note="names", character_names={"CHAR_01": ["Robin"]}
    )
    late = hand_written(char, sequence=1, event_age=30, content_full="I walked to work. " * 10)
    early = hand_written(
        char,
        sequence=2,
        event_age=7,
        content_full=CLEAN.replace("the librarian asked", "the librarian asked Robin, good girl"),
    )
    copy = hand_written(char, sequence=3, event_age=31, content_full="I  walked to work. " * 10)
    run = run_audit(admin_user, capture=django_capture_on_commit_callbacks)
    with pytest.raises(AuditError, match="still open"):
        audit_run_finalize(run_id=run.pk, actor=admin_user)
    reviewer = person(Role.MEMORY_REVIEWER)
    for case in run.cases.all():
        case_review_decide(
            case_id=case.pk, reviewer=reviewer, decision="false_positive", reason="kept"
        )
    audit_run_finalize(run_id=run.pk, actor=admin_user)
    run.refresh_from_db()
    timeline = list(run.timeline.order_by("position").values_list("memory_id", flat=True))
    assert timeline == [early.pk, late.pk]
    assert run.summary["deduplicated"] == [copy.memory_id]
    early.refresh_from_db()
    assert "Robin" not in early.content_full and "good girl" not in early.content_full
    assert "the librarian asked you, good kid" in early.content_full
    assert early.audit_versions.order_by("-number").first().origin == "sanitized"
    # Idempotent.
    audit_run_finalize(run_id=run.pk, actor=admin_user)
    assert run.timeline.count() == 2
