"""Memory generation's actions, one door each (issue #33): the plan and run pages and
``/api/memory-generation/`` reach the services through these functions, so both refuse
with the same words (``core.actions``). A button's refusal carries no form (a button has
no fields to validate): its ``messages`` are the service's."""

from annotation.memory_generation.services import plans, runs
from annotation.memory_generation.services.runs import MemoryGenerationError
from core.actions import ActionRefused, form_action

__all__ = [
    "ActionRefused",
    "memory_run_cancel",
    "memory_run_launch",
    "memory_run_resume",
    "memory_run_resume_with_budget",
    "memory_run_retry",
    "memory_run_start",
    "plan_top_up",
    "plans_create",
    "weights_save",
]


def memory_run_launch(form, *, user, start: bool = True):
    """A run from a bound ``MemoryRunForm``, started at once unless ``start`` is false
    (the API may leave it pending)."""

    def launch(data):
        run = runs.run_create(user=user, **form.service_arguments())
        return runs.run_start(run_id=run.pk, user=user) if start else run

    return form_action(form, launch, refusals=(MemoryGenerationError,))


def _run_action(service, *, run_id: int, user, **kwargs):
    try:
        return service(run_id=run_id, user=user, **kwargs)
    except MemoryGenerationError as error:
        raise ActionRefused(None, cause=error) from error


def memory_run_start(*, run_id: int, user):
    """Start a pending run: dispatch up to its concurrency of batches."""
    return _run_action(runs.run_start, run_id=run_id, user=user)


def memory_run_cancel(*, run_id: int, user):
    """Cancel a pending or running run; a run in any other state is refused."""
    return _run_action(runs.run_cancel, run_id=run_id, user=user)


def memory_run_resume(*, run_id: int, user, budget_usd=None):
    """Resume a cancelled run: its unfinished batches ask only for their empty slots. A
    run stopped at a spending limit resumes with ``budget_usd`` (None or blank: no
    budget, never the old one), as every run's resume in the API does."""
    return _run_action(runs.run_resume, run_id=run_id, user=user, budget_usd=budget_usd)


def memory_run_resume_with_budget(form, *, run_id: int, user):
    """Resume a run stopped at a spending limit with the budget of a bound
    ``RunResumeForm`` (blank: none); refused, saying why, while it would stop again."""
    return form_action(
        form,
        lambda data: runs.run_resume(run_id=run_id, user=user, budget_usd=data.get("budget_usd")),
        refusals=(MemoryGenerationError,),
    )


def memory_run_retry(*, run_id: int, user):
    """Queue the run's failed batches again; a run without any is refused."""
    return _run_action(runs.run_retry_failed, run_id=run_id, user=user)


def plan_top_up(*, user, plan_id: int, note: str = ""):
    """A top-up of the latest plan after a finalized audit; the service refuses a plan
    that is not the latest, one still generating, or one no audit has followed."""
    try:
        return plans.plan_top_up(user=user, plan_id=plan_id, note=note)
    except plans.PlanError as error:
        raise ActionRefused(None, cause=error) from error


# Plans and weights: the page's form checks each field it draws (one input per age, a
# checkbox per plannable character), the API's serializer the body's shape; both then
# come here, and the service judges the values with the same words for both.


def weights_save(*, user, weights, note: str = ""):
    """The next quota weight version: 45 numbers ≥ 0, one per age from 6 to 50."""
    try:
        return plans.weights_create(user=user, weights=weights, note=note)
    except plans.PlanError as error:
        raise ActionRefused(None, cause=error) from error


def plans_create(*, user, character_keys, weights_id=None, target=None, note: str = ""):
    """One initial plan per character, all or nothing; the refusal names every character
    that cannot be planned and why."""
    extra = {} if target is None else {"target": target}
    try:
        return plans.plan_create(
            user=user, character_keys=character_keys, weights_id=weights_id, note=note, **extra
        )
    except plans.PlanError as error:
        raise ActionRefused(None, cause=error) from error
