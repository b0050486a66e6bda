"""Conflict of interest refused at the act (issue #24): a service raises
:class:`ConflictOfInterest` (with a message naming the person's conflicting record) when
the protocol forbids the act to this person because of their own earlier record. The API
answers it 403 (``base.api.exception_handler``); a page renders :func:`conflict_page`."""

from django.core.exceptions import ValidationError
from django.shortcuts import render


class ConflictOfInterest(ValidationError):
    """The person may not do this act because of their own record; the message names it."""


def conflict_page(request, error: ValidationError):
    """The 403 page with the refusal's message shown."""
    return render(request, "403.html", {"reason": " ".join(error.messages)}, status=403)
