"""Evaluation's actions, one door each (issue #33): the run pages and ``/api/evaluation/``
validate with the same forms and reach the services through these functions, so both
refuse with the same words (``core.actions``)."""

from core.actions import ActionRefused, form_action

from . import services
from .forms import EvaluationRunForm, PredictionImportForm
from .models import EvaluationError
from .prediction_import import evaluation_run_import

__all__ = ["ActionRefused", "run_cancel", "run_import", "run_launch", "run_resume", "run_retry"]

REFUSALS = (EvaluationError,)


def run_launch(form: EvaluationRunForm, *, user):
    """Create and start the run a bound launch form asks for."""

    def launch(data):
        run = services.evaluation_run_create(
            created_by=user,
            provider_key=data["provider"],
            setting=data["setting"],
            items=form.items(),
            item_set=data["item_set_name"],
            label=data["label"],
            decoding={"temperature": data["temperature"], "max_tokens": data["max_tokens"]},
            retrieval_method=data["retrieval_method"],
            k=data["k"],
            note=data["note"],
            budget_usd=data.get("budget_usd"),
        )
        services.evaluation_run_start(run_id=run.pk)
        return run

    return form_action(form, launch, refusals=REFUSALS)


def run_import(form: PredictionImportForm, *, user):
    """A finished run from a bound import form's file; the whole file is refused, and
    nothing stored, on any wrong row."""

    def store(data):
        upload = data["file"]
        return evaluation_run_import(
            created_by=user,
            filename=upload.name,
            content=upload.read(),
            label=data["label"],
            setting=data["setting"],
            note=data["note"],
        )

    return form_action(form, store, refusals=REFUSALS)


def run_resume(*, run_id: int, form=None) -> int:
    """Queue again every item without a stored response: how many.
    ``EvaluationRun.DoesNotExist`` passes through (each door answers its own 404).

    ``form``: a bound ``core.llm_runs.forms.RunResumeForm``, the new budget of a run
    stopped at its budget or a monthly cap (blank: none). Without one (the plain Resume
    button of a cancelled or failed run), no budget is given: a stopped run then resumes
    with none."""
    if form is not None:
        return form_action(
            form,
            lambda data: services.evaluation_run_resume(
                run_id=run_id, budget_usd=data.get("budget_usd")
            ),
            refusals=REFUSALS,
        )
    try:
        return services.evaluation_run_resume(run_id=run_id)
    except EvaluationError as error:
        raise ActionRefused(None, cause=error) from error


def run_cancel(*, run_id: int):
    """Stop a pending or running run (no form); ``DoesNotExist`` passes through."""
    try:
        return services.evaluation_run_cancel(run_id=run_id)
    except EvaluationError as error:
        raise ActionRefused(None, cause=error) from error


def run_retry(*, run_id: int) -> int:
    """Queue again only the items whose call failed (no form): how many."""
    try:
        return services.evaluation_run_retry_failed(run_id=run_id)
    except EvaluationError as error:
        raise ActionRefused(None, cause=error) from error
