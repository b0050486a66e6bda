"""One door per action (issue #33): a write a person can make from a page and a script
from the API is validated and carried out by one function, so the two doors refuse the
same input with the same words.

An action function takes the submitted ``data`` (a page's ``request.POST``, the API's
request body) and keyword-only context (the user, the record's id), validates with the
page's Django form and calls the one service. It returns what the service returns, or
raises :class:`ActionRefused` carrying the bound form: its field errors when the form
refused, plus the service's message as a non-field error when the service did. The page
re-renders that form (or flashes ``refused.messages``); the API answers the same
messages in its error envelope (``core.api.exception_handler``).
"""

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError


class ActionRefused(Exception):
    """An action refused. ``form`` holds every message a person sees; ``cause`` is the
    service's own error when the service refused (the API picks its status from it:
    a conflict of interest 403, a stale version 412 ...), None when the form did."""

    def __init__(self, form, cause: Exception | None = None):
        self.form = form
        self.cause = cause
        super().__init__("; ".join(self.messages))

    @property
    def messages(self) -> list[str]:
        """The service's messages, or the form's (every field's, in the form's order)."""
        if self.cause is not None:
            return cause_messages(self.cause)
        return [m for errors in self.form.errors.values() for m in errors]


def cause_messages(error: Exception) -> list[str]:
    """The messages a service's error carries: a ``ValidationError``'s list (or a domain
    error's own ``messages``), or the text of any other domain error."""
    if isinstance(error, ValidationError) or hasattr(error, "messages"):
        return list(error.messages)
    return [str(error)]


def validated(form) -> dict:
    """``form.cleaned_data``, or :class:`ActionRefused` with the form's errors: for a door
    that looks at the input before the action (the API's replay of a decision already
    made answers 200 without calling the service again)."""
    if not form.is_valid():
        raise ActionRefused(form)
    return form.cleaned_data


def form_action(
    form,
    call: Callable[[dict], Any],
    *,
    refusals: tuple[type[Exception], ...] = (ValidationError,),
) -> Any:
    """Validate ``form`` and return ``call(form.cleaned_data)``. A form that does not
    validate, or a service raising one of ``refusals``, raises :class:`ActionRefused`
    with the form; the service's message is added to the form as a non-field error."""
    data = validated(form)
    try:
        return call(data)
    except refusals as error:
        for message in cause_messages(error):
            form.add_error(None, message)
        raise ActionRefused(form, cause=error) from error


#: What :func:`on_page` answers for an action that refused.
REFUSED = object()


def on_page(call: Callable[[], Any]) -> Any:
    """A page's door: ``call()``'s result, or :data:`REFUSED` when the action refused; the
    form it was given then holds every message, and the page renders it again."""
    try:
        return call()
    except ActionRefused:
        return REFUSED
