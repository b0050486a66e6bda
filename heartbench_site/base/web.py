"""Small pieces every app's views share."""

import csv

from django.http import HttpResponse


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
