"""The page side of resuming a run stopped at a spending limit (issue #36), the same on
every LLM-backed stage: the run's budget form bound to the post, the stage's own resume
action, the run's page again with the form's messages when it is refused, and a message
and a redirect to the run's page when it is not."""

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.shortcuts import redirect

from core.actions import REFUSED, on_page
from core.llm_runs.forms import RunResumeForm

__all__ = ["resume_from_page"]


def resume_from_page(
    request,
    resume: Callable[[RunResumeForm], Any],
    *,
    refused_page: Callable[[RunResumeForm], Any],
    resumed: str | Callable[[Any], str | None],
    to: str,
):
    """``resume(form)`` is the stage's action: it validates the form and raises
    ``ActionRefused`` (its messages on the form) when the budget or the run's state
    refuses it. ``refused_page(form)`` draws the run's page with that form;
    ``resumed`` is the success message, or a function of the action's result giving it
    (None: no message); ``to`` is the run page's URL."""
    form = RunResumeForm(request.POST)
    result = on_page(lambda: resume(form))
    if result is REFUSED:
        return refused_page(form)
    message = resumed(result) if callable(resumed) else resumed
    if message:
        messages.success(request, message)
    return redirect(to)
