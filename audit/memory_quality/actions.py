"""The memory audit's actions, one door each (issue #33): the audit pages and
``/api/audit/`` validate with the same forms and reach the services through these
functions, so both refuse with the same words (``core.actions``)."""

from audit.memory_quality.models import AuditError, AuditRun
from audit.memory_quality.services import (
    classifier,
    configuration,
    finalize,
    review,
    runs,
    spending,
)
from core.actions import ActionRefused, form_action

__all__ = [
    "ActionRefused",
    "case_decide",
    "case_senior_edit",
    "run_classify",
    "run_finalize",
    "run_resume",
    "run_start",
    "settings_create",
]

REFUSALS = (AuditError,)
CRITERION_MISSING = "Choose a criterion, 1-6."


def case_decide(form, *, user, case_id: int):
    """A reviewer's decision on a flagged memory, from a bound ``ReviewDecisionForm``."""
    return form_action(
        form,
        lambda data: review.case_review_decide(
            case_id=case_id, reviewer=user, decision=data["decision"], reason=data["reason"]
        ),
        refusals=REFUSALS,
    )


def case_senior_edit(form, *, user, case_id: int):
    """The senior's edit, re-audited: ``(memory, findings)``, from a bound
    ``SeniorEditForm``."""
    return form_action(
        form,
        lambda data: review.case_senior_edit(
            case_id=case_id,
            editor=user,
            context=data["context"],
            content_summary=data["content_summary"],
            content_full=data["content_full"],
            note=data["note"],
        ),
        refusals=REFUSALS,
    )


def run_start(form, *, user):
    """A new audit run from a bound ``AuditRunForm`` (the runs page's form, the API's
    body), queued for a worker once it commits."""

    def start(data):
        run = runs.audit_run_start(
            created_by=user,
            character_keys=data["characters"],
            note=data["note"],
            budget_usd=data.get("budget_usd"),
        )
        runs.queue_run(run)
        return run

    return form_action(form, start, refusals=REFUSALS)


#: ``run_resume``'s budget when none is given: the run's own, as it is.
KEEP_BUDGET = object()


def run_resume(*, user, run_id: int, budget_usd=KEEP_BUDGET):
    """The run's one resume (the page's button and form, the API): a run stopped at a
    spending limit resumes with ``budget_usd`` (blank: none; not given: its budget as
    it is, refused while it is reached), a cancelled run audits its cancelled
    characters (``runs.audit_run_resume``). Each service checks the state again under
    the run's lock."""
    run = AuditRun.objects.only("status", "budget_usd").get(pk=run_id)
    if not run.is_stopped_at_budget:
        return runs.audit_run_resume(run_id=run_id, user=user)
    budget = run.budget_usd if budget_usd is KEEP_BUDGET else budget_usd
    return spending.audit_run_budget_resume(run_id=run_id, budget_usd=budget, user=user)


def run_finalize(*, user, run_id: int):
    """Build a finished run's timeline (no form). ``AuditRun.DoesNotExist`` passes
    through: each door answers its own 404."""
    try:
        return finalize.audit_run_finalize(run_id=run_id, actor=user)
    except AuditError as error:
        raise ActionRefused(None, cause=error) from error


def run_classify(*, user, run_id: int, criterion) -> tuple[int, int]:
    """Queue the classifier over a run on one criterion (the page's select, the API's
    number): ``(criterion, calls queued)``."""
    try:
        criterion = int(criterion)
    except (TypeError, ValueError):
        raise ActionRefused(None, cause=AuditError({"criterion": [CRITERION_MISSING]})) from None
    try:
        queued = classifier.classifier_run_start(run_id=run_id, criterion=criterion, actor=user)
    except AuditError as error:
        raise ActionRefused(None, cause=error) from error
    return criterion, queued


def settings_create(form, *, user, character_names):
    """A new version of the audit settings, from a bound ``AuditSettingsForm``."""
    return form_action(
        form,
        lambda data: configuration.audit_settings_create(
            created_by=user,
            note=data["note"],
            character_names=character_names,
            **form.settings_values(),
        ),
        refusals=REFUSALS,
    )
