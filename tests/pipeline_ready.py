"""Test building blocks for the stage gates and the audited corpus (issue #18).

``scenario_reviewed`` and ``memories_audited`` put a scenario or a character where
generation takes it (a completed scenario review; a finalized audit that kept every
memory) without walking each test through those workflows; ``audit_leaving_out_a_copy``
runs the real memory audit (start, execute, review, finalize) over a character with a
duplicated memory, so the finalized timeline leaves the copy out.
"""

from django.conf import settings
from django.contrib.auth.models import Group
from django.utils import timezone

from annotation.scenario_review.models import ScenarioReview, ScenarioVersion
from audit.memory_quality.models import AuditRun, MemoryCase, TimelineEntry
from audit.memory_quality.services.configuration import audit_settings_current
from audit.memory_quality.services.finalize import audit_run_finalize
from audit.memory_quality.services.review import case_review_decide
from audit.memory_quality.services.runs import audit_run_execute, audit_run_start
from core.roles import Role
from tests.factories import MemoryFactory, UserFactory


def scenario_reviewed(*scenarios):
    """Each scenario's review, at 'complete' (App. C.2 both passes done)."""
    for scenario in scenarios:
        version = ScenarioVersion.objects.create(
            scenario=scenario, number=1, origin=ScenarioVersion.Origin.IMPORT, **scenario.content()
        )
        ScenarioReview.objects.create(
            scenario=scenario,
            version=version,
            stage=ScenarioReview.Stage.COMPLETE,
            screened_at=timezone.now(),
            completed_at=timezone.now(),
        )
    return scenarios


def memories_audited(*characters) -> AuditRun:
    """One finalized audit run over ``characters`` whose timeline keeps every memory."""
    run = AuditRun.objects.create(
        settings_version=audit_settings_current(),
        character_keys=sorted(c.key for c in characters),
        status=AuditRun.Status.FINISHED,
        finished_at=timezone.now(),
        finalized_at=timezone.now(),
    )
    entries = []
    for character in characters:
        for position, memory in enumerate(
            character.memories.order_by("event_age", "sequence"), start=1
        ):
            entries.append(
                TimelineEntry(run=run, character=character, memory=memory, position=position)
            )
    TimelineEntry.objects.bulk_create(entries)
    return run


def _user(name, role):
    Group.objects.get_or_create(name=role.value)
    return UserFactory(username=name, roles=[role])


def audit_leaving_out_a_copy(character, *, original):
    """Add a word-for-word copy of ``original`` (a later memory of ``character``), run
    the memory audit over the character, accept every flag as a false positive and
    finalize: the finalized timeline keeps ``original`` and leaves the copy out (App.
    B.6: identical narratives keep the earliest). Returns the copy."""
    copy = MemoryFactory(
        character=character,
        sequence=original.sequence + 100,
        event_age=original.event_age,
        content_full=original.content_full,
        content_summary=original.content_summary,
    )
    admin = _user("audit-admin", Role.ADMIN)
    # A false positive takes the reviewing team's agreement (App. B.6).
    team = [
        _user(f"audit-memory-reviewer-{n}", Role.MEMORY_REVIEWER)
        for n in range(1, settings.HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM + 1)
    ]
    run = audit_run_start(created_by=admin, character_keys=[character.key])
    audit_run_execute(run_id=run.pk, dispatch_repairs=False)
    for case in run.cases.filter(status=MemoryCase.Status.REVIEW):
        for reviewer in team:
            case_review_decide(
                case_id=case.pk, reviewer=reviewer, decision="false_positive", reason="kept as is"
            )
    run = audit_run_finalize(run_id=run.pk, actor=admin)
    assert copy.memory_id in run.summary["deduplicated"], run.summary
    return copy
