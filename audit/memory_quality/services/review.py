"""Manual review of the memories the repair loop could not fix (App. B.6): a memory
reviewer confirms a defect; a false-positive override takes effect once the reviewing
team (``HEARTBENCH_MEMORY_AUDIT_OVERRIDE_TEAM`` distinct reviewers) has agreed; the
senior expert edits a confirmed defect, re-audited at once by the same checks that
screen the memories (services.checks) before the case is closed.

When the re-audit keeps flagging the senior's edit, the senior has two ways forward
besides editing again (App. B.6: "Human review can confirm a defect or override a
false-positive LLM flag"): re-audit the edit as it stands (an LLM classifier may read
it differently a second time), and, when only the LLM classifier flags it, send it back
to the reviewing team, whose unanimous false-positive agreement accepts the edit as it
is (the paper's three false positives) and whose confirmation returns it to the senior.
Each step is an audit event, and the case's saves are in the decision history."""

from django.db import transaction
from django.utils import timezone

from annotation.corpus.models import Memory
from audit.memory_quality import selectors
from audit.memory_quality.models import (
    AuditError,
    MemoryCase,
    MemoryFlag,
    MemoryVersion,
    OverrideAgreement,
)
from audit.memory_quality.services import checks
from audit.memory_quality.services.configuration import override_team_size
from audit.memory_quality.services.records import (
    case_flags,
    log_event,
    memory_change,
    require_role,
)
from core.plurals import counted
from core.roles import Role
from core.text_rules import NOTE, TEXT, check_text, check_texts


def _case_for_review(case_id: int) -> MemoryCase:
    case = MemoryCase.objects.select_for_update().filter(pk=case_id).first()
    if case is None:
        raise AuditError(f"There is no audit case {case_id}.")
    if case.status != MemoryCase.Status.REVIEW:
        raise AuditError(f"This memory is at “{case.get_status_display()}”, not awaiting review.")
    return case


@transaction.atomic
def case_review_decide(*, case_id: int, reviewer, decision: str, reason: str) -> MemoryCase:
    """A memory reviewer's decision. Confirming the defect sends the memory to the senior
    expert. Marking a false positive records this reviewer's agreement; the override
    takes effect when the team's number of distinct reviewers has agreed."""
    require_role(reviewer, Role.MEMORY_REVIEWER, "confirm or override audit flags")
    reason = check_text(reason or "", label="Reason", limit=NOTE, error=AuditError).strip()
    case = _case_for_review(case_id)
    if decision not in MemoryCase.Decision.values:
        raise AuditError("Choose: confirm the defect, or mark the flag a false positive.")
    if decision == MemoryCase.Decision.FALSE_POSITIVE:
        return _agree_false_positive(case, reviewer=reviewer, reason=reason)
    case.decision = decision
    case.decision_reason = reason
    case.reviewer = reviewer
    case.decided_at = timezone.now()
    case.status = MemoryCase.Status.SENIOR
    case.save()
    log_event(actor=reviewer, action=f"review_{decision}", case=case, reason=reason)
    return case


def _agree_false_positive(case: MemoryCase, *, reviewer, reason: str) -> MemoryCase:
    if not reason:
        raise AuditError("Say why the flag is a false positive: a reason is required.")
    if case.versions.filter(origin=MemoryVersion.Origin.SENIOR_EDIT, author=reviewer).exists():
        raise AuditError(
            "You edited this memory as the senior expert: the reviewing team judges your "
            "edit, not you."
        )
    team = override_team_size()
    agreed = list(case.agreements.filter(review_round=case.review_round).select_related("reviewer"))
    if any(a.reviewer_id == reviewer.pk for a in agreed):
        needed = max(team - len(agreed), 0)
        raise AuditError(
            f"You have already agreed that this flag is a false positive; "
            f"{counted(needed, 'more reviewer')} must agree."
        )
    OverrideAgreement.objects.create(
        case=case, reviewer=reviewer, reason=reason, review_round=case.review_round
    )
    count = len(agreed) + 1
    log_event(
        actor=reviewer,
        action="review_false_positive_agreed",
        case=case,
        reason=reason,
        agreed=count,
        team=team,
        review_round=case.review_round,
    )
    if count < team:
        return case
    case.decision = MemoryCase.Decision.FALSE_POSITIVE
    case.decision_reason = reason
    case.reviewer = reviewer
    case.decided_at = timezone.now()
    case.status = MemoryCase.Status.FALSE_POSITIVE
    case.save()
    names = [a.reviewer.get_username() for a in agreed] + [reviewer.get_username()]
    log_event(
        actor=reviewer,
        action="review_false_positive",
        case=case,
        agreed_by=names,
        review_round=case.review_round,
        accepted_senior_edit=case.review_round > 1,
    )
    return case


def _case_for_edit(case_id: int) -> MemoryCase:
    case = (
        MemoryCase.objects.select_for_update()
        .select_related("run__settings_version")
        .filter(pk=case_id)
        .first()
    )
    if case is None:
        raise AuditError(f"There is no audit case {case_id}.")
    if case.status != MemoryCase.Status.SENIOR:
        raise AuditError(
            f"This memory is at “{case.get_status_display()}”; only confirmed defects are edited."
        )
    return case


def _edit_changes(memory: Memory, new: dict) -> dict:
    new = {k: v.replace("\r\n", "\n").strip() for k, v in new.items()}
    if any(not v for v in new.values()):
        raise AuditError("Context, summary and narrative must all be non-empty.")
    changes = {k: v for k, v in new.items() if getattr(memory, k) != v}
    if not changes:
        raise AuditError(
            "Nothing changed: edit the flagged text before saving. To keep this text, "
            "re-audit it as it stands, or (when only the LLM classifier flags it) ask the "
            "reviewing team whether the flag is a false positive."
        )
    return changes


def _classify(memory: dict, config, classifier, failed: str) -> tuple[list, list]:
    """The LLM classifier's findings on ``memory`` (called outside any transaction) and
    the checks a re-audit used; a failed call is an error that starts with ``failed``."""
    found, errors, used = checks.classifier_findings(
        memory=memory, config=config, provider=classifier
    )
    if errors:
        raise AuditError(f"{failed} failed ({'; '.join(errors)}). Try again.")
    return found, [checks.PATTERN] + ([checks.CLASSIFIER] if used else [])


def _locked_unchanged(case_id: int, before: dict, changed: str):
    """The case and its memory, row-locked, provided the memory still reads ``before``
    (what the classifier judged outside the transaction); otherwise the ``changed`` error."""
    case = _case_for_edit(case_id)
    memory = Memory.objects.select_for_update().get(pk=case.memory_id)
    if checks.memory_dict(memory) != before:
        raise AuditError(changed)
    return case, memory


def _replace_flags(case: MemoryCase, findings, audit_pass: str) -> None:
    """A re-audit's findings become the case's current flags; none closes the case as
    revised by the senior expert."""
    case.flags.filter(current=True).update(current=False)
    MemoryFlag.objects.bulk_create(case_flags(case, findings, audit_pass))
    if not findings:
        case.status = MemoryCase.Status.REVISED
        case.save(update_fields=["status", "updated_at"])


def case_senior_edit(
    *,
    case_id: int,
    editor,
    context: str,
    content_summary: str,
    content_full: str,
    note="",
    classifier=None,
) -> tuple[MemoryCase, list]:
    """The senior expert's edit of a confirmed defect, re-audited before it is accepted
    by the pattern checks and, where a classifier model is configured, the LLM
    classifier (its calls made outside the transaction). The edit is kept as a memory
    version with the re-audit's outcome; the case closes only when nothing is flagged.
    Returns the case and the re-audit's findings."""
    require_role(editor, Role.ARBITRATOR, "edit a memory after the audit")
    new = {"context": context, "content_summary": content_summary, "content_full": content_full}
    check_texts(
        new | {"note": note or ""},
        {"context": TEXT, "content_summary": TEXT, "content_full": TEXT, "note": NOTE},
        labels={"content_full": "Full account", "note": "Note on the edit"},
        error=AuditError,
    )
    with transaction.atomic():
        case = _case_for_edit(case_id)
        memory = Memory.objects.get(pk=case.memory_id)
        changes = _edit_changes(memory, new)
        config = case.run.settings_version.as_config()
        before = checks.memory_dict(memory)
    found, used_checks = _classify(
        before | changes,
        config,
        classifier,
        "The edit was not saved: the LLM classifier's re-audit",
    )
    with transaction.atomic():
        case, memory = _locked_unchanged(
            case_id, before, "The memory changed while the edit was re-audited; edit it again."
        )
        findings = checks.merge(
            checks.pattern_findings(memory=memory, config=config, changes=changes), found
        )
        edits = case.versions.filter(origin=MemoryVersion.Origin.SENIOR_EDIT).count() + 1
        memory_change(
            memory=memory,
            changes=changes,
            origin=MemoryVersion.Origin.SENIOR_EDIT,
            author=editor,
            case=case,
            note=note,
            reaudit={
                "checks": used_checks,
                "findings": [f.as_dict() for f in findings],
                "passed": not findings,
            },
        )
        _replace_flags(case, findings, f"senior edit {edits}")
        log_event(
            actor=editor,
            action="senior_edit",
            case=case,
            fields=sorted(changes),
            checks=used_checks,
            passed=not findings,
        )
    return case, findings


# --- the senior's ways forward when the re-audit keeps flagging the edit -----------------


def case_senior_reaudit(*, case_id: int, editor, classifier=None) -> tuple[MemoryCase, list]:
    """Re-audit the senior's last edit as it stands, by the same checks (the classifier's
    calls made outside the transaction). Kept as an audit pass ("senior re-audit N")
    with its flags and an event; the case closes ("Revised by the senior expert") when
    nothing is flagged. Returns the case and the findings."""
    require_role(editor, Role.ARBITRATOR, "re-audit an edited memory")
    with transaction.atomic():
        case = _case_for_edit(case_id)
        blocker = selectors.senior_way_forward(case)[0]
        if blocker:
            raise AuditError(blocker)
        memory = Memory.objects.get(pk=case.memory_id)
        config = case.run.settings_version.as_config()
        before = checks.memory_dict(memory)
    found, used_checks = _classify(
        before, config, classifier, "The re-audit did not run: the LLM classifier's call"
    )
    with transaction.atomic():
        case, memory = _locked_unchanged(
            case_id, before, "The memory changed while it was re-audited; look at it again."
        )
        findings = checks.merge(
            checks.pattern_findings(memory=memory, config=config, changes={}), found
        )
        passes = (
            case.flags.filter(audit_pass__startswith="senior re-audit")
            .values("audit_pass")
            .distinct()
            .count()
        )
        audit_pass = f"senior re-audit {passes + 1}"
        _replace_flags(case, findings, audit_pass)
        log_event(
            actor=editor,
            action="senior_reaudit",
            case=case,
            audit_pass=audit_pass,
            version=selectors.last_senior_edit(case).number,
            checks=used_checks,
            findings=[f.as_dict() for f in findings],
            passed=not findings,
        )
    return case, findings


@transaction.atomic
def case_senior_ask_team(*, case_id: int, editor, reason: str) -> MemoryCase:
    """Send the senior's edit, still flagged by the LLM classifier only, back to the
    reviewing team with the senior's reason: the case returns to review in a new round
    (agreements of an earlier round do not count), where the team's false-positive
    agreement accepts the edit as it stands and a confirmation returns it to the senior."""
    require_role(editor, Role.ARBITRATOR, "send an edited memory to the reviewing team")
    reason = check_text(reason or "", label="Reason", limit=NOTE, error=AuditError).strip()
    if not reason:
        raise AuditError("Say why you judge the LLM flag a false positive: a reason is required.")
    case = _case_for_edit(case_id)
    blocker = selectors.senior_way_forward(case)[1]
    if blocker:
        raise AuditError(blocker)
    flags = [
        {"criterion": f.criterion, "field": f.field, "audit_pass": f.audit_pass}
        for f in case.flags.filter(current=True)
    ]
    earlier = {
        "decision": case.decision,
        "reviewer": case.reviewer.get_username() if case.reviewer else "",
        "decided_at": case.decided_at.isoformat() if case.decided_at else "",
    }
    case.review_round += 1
    case.status = MemoryCase.Status.REVIEW
    case.decision = ""
    case.decision_reason = ""
    case.reviewer = None
    case.decided_at = None
    case.save()
    log_event(
        actor=editor,
        action="senior_asked_team",
        case=case,
        reason=reason,
        review_round=case.review_round,
        version=selectors.last_senior_edit(case).number,
        flags=flags,
        earlier_decision=earlier,
    )
    return case
