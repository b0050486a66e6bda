"""Small pieces every app's views share."""

import csv
from collections.abc import Callable

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import include


def add_error_messages(form, error) -> None:
    """Put a domain error's messages (``error.messages``) on ``form`` as non-field errors,
    so the page re-renders the form with what to fix."""
    for message in error.messages:
        form.add_error(None, message)


def csv_download(filename: str):
    """A CSV attachment response and a ``csv.writer`` writing into it."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response, csv.writer(response)


def include_joined(namespace: str, *pattern_lists):
    """One URL namespace whose patterns several workflow packages define (e.g. ``review``:
    profile review's and scenario review's), for the site's URLconf to ``path()`` under
    one prefix."""
    return include(([p for patterns in pattern_lists for p in patterns], namespace))


def run_action(
    request,
    action: Callable[[Callable[[str], None]], object],
    *,
    refusal: type[Exception],
    fragment: Callable[[str], HttpResponse],
    done_url: str,
    done_message: str,
):
    """One run-level service call from a run page (cancel, resume, retry).

    ``action(on_unavailable)`` calls the service; a ``refusal`` it raises, or work the
    broker could not take, is shown in place of ``done_message``: in the htmx fragment
    (``fragment(problem)``) or, without htmx, as a message after a redirect to
    ``done_url``."""
    unqueued: list[str] = []
    try:
        action(unqueued.append)
    except refusal as error:
        problem = error.messages[0] if hasattr(error, "messages") else str(error)
    else:
        problem = unqueued[0] if unqueued else ""
    if request.htmx:
        return fragment(problem)
    if problem:
        messages.error(request, problem)
    else:
        messages.success(request, done_message)
    return redirect(done_url)
