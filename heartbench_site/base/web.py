"""Small pieces every app's views share."""

import csv

from django.http import HttpResponse
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
