"""Candidate generation's actions, one door each (issue #33): the launch form, the run
page's buttons and ``/api/generation/runs/`` reach the services through these functions,
so both refuse with the same words (``core.actions``). A button's refusal carries no form
(a button has no fields to validate): its ``messages`` are the service's."""

from collections.abc import Callable

from annotation.generation.services import runs
from annotation.generation.services.runs import GenerationError
from core.actions import ActionRefused, form_action

__all__ = [
    "ActionRefused",
    "generation_run_cancel",
    "generation_run_launch",
    "generation_run_resume",
    "generation_run_retry",
]


def generation_run_launch(form, *, user, on_unavailable: Callable[[str], None] | None = None):
    """Create a run from a bound ``GenerationRunForm`` and start it (without a broker the
    run is saved and shown as running; its units wait). A ``GenerationBlocked`` refusal
    keeps its ``blocks`` on ``cause``."""
    run = form_action(
        form,
        lambda data: runs.generation_run_create(
            user=user,
            families=data["families"],
            note=data["note"],
            budget_usd=data.get("budget_usd"),
            **form.pair_filter(),
            **form.override(),
        ),
        refusals=(GenerationError,),
    )
    runs.generation_run_start(run_id=run.pk, on_unavailable=on_unavailable)
    return run


def generation_run_cancel(*, run_id: int, on_unavailable: Callable[[str], None] | None = None):
    """Cancel a pending or running run; a run in any other state is refused."""
    try:
        return runs.generation_run_cancel(run_id=run_id)
    except GenerationError as error:
        raise ActionRefused(None, cause=error) from error


def generation_run_retry(*, run_id: int, on_unavailable: Callable[[str], None] | None = None):
    """Queue the run's failed units again; a run without any is refused."""
    try:
        return runs.generation_run_retry_failed(run_id=run_id, on_unavailable=on_unavailable)
    except GenerationError as error:
        raise ActionRefused(None, cause=error) from error


def generation_run_resume(
    form, *, run_id: int, on_unavailable: Callable[[str], None] | None = None
):
    """Resume a run stopped at a spending limit, with the budget of a bound
    ``RunResumeForm`` (blank: none); a run not stopped so is refused."""
    return form_action(
        form,
        lambda data: runs.generation_run_resume(
            run_id=run_id, budget_usd=data.get("budget_usd"), on_unavailable=on_unavailable
        ),
        refusals=(GenerationError,),
    )
