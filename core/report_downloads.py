"""What a download of a stored report's figures (core.reports) answers before the first
computation of those figures has finished: a sentence and 409 with ``Retry-After`` (the
request conflicts with the report's state: its figures do not exist yet), never a
computation in the request (issue #34). Not 503: the site is up, and the walks of every
URL treat a 5xx as a server error."""

from django.http import HttpResponse
from rest_framework.exceptions import APIException

NOT_READY = "The figures are being computed, try again in a moment."
RETRY_SECONDS = 5


class FiguresNotReady(Exception):
    """Nothing is stored yet for this report (its computation is queued)."""

    def __init__(self, message: str = NOT_READY):
        super().__init__(message)


class FiguresBeingComputed(APIException):
    """The API's answer for :class:`FiguresNotReady`."""

    status_code = 409
    default_detail = NOT_READY
    default_code = "figures_being_computed"


def not_ready_response() -> HttpResponse:
    response = HttpResponse(NOT_READY, status=409, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_SECONDS)
    return response
