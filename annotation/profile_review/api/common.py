"""What the review endpoints share (scenario review's API too): the error and conflict
answers, a 404 from a selector's lookup, the request body, a body answered with its
ETag, and the annotators', readers' and senior expert's base views.
"""

import json

from django.http import Http404
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.profile_review.models import ReviewError
from core.api import etag, form_error_response, with_etag
from core.roles import HasRole, Role

ERROR = inline_serializer(
    "ReviewErrorResponse",
    {
        "detail": serializers.ListField(child=serializers.CharField()),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)
CONFLICT = inline_serializer("ReviewConflictResponse", {"detail": serializers.CharField()})


def error_response(error: ReviewError) -> Response:
    """A ``ReviewError`` as a 400 response (``ERROR`` documents its shape)."""
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def refused_answer(refused) -> Response:
    """An action refused (``core.actions.ActionRefused``, issue #33): the form's field
    errors as ``form_error_response`` answers them, or the service's ``ReviewError`` as a
    400 (``error_response``)."""
    if refused.cause is None:
        return form_error_response(refused.form)
    return error_response(refused.cause)


def conflict(error: ReviewError | str) -> Response:
    """409: a different submit on a record that is already final; the service's words."""
    text = error if isinstance(error, str) else " ".join(error.messages)
    return Response({"detail": text}, status=status.HTTP_409_CONFLICT)


def not_found(call):
    """``call()``, with a selector's ``Http404`` turned into the API's 404."""
    try:
        return call()
    except Http404 as missing:
        raise NotFound(str(missing)) from None


def request_body(request) -> dict:
    """The request's body as a dict (a JSON object or form fields)."""
    if not hasattr(request.data, "get"):
        raise ParseError("Send a JSON object.")
    return request.data


def data_etag(data) -> str:
    """The ETag of a record as the caller reads it: any change to what they see
    changes it."""
    return etag(json.dumps(data, sort_keys=True, default=str))


def answer(data, *, code=status.HTTP_200_OK) -> Response:
    """``data`` with its ETag."""
    return with_etag(Response(data, status=code), data_etag(data))


class ProfileReviewApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)


class AnnotatorApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR,)


class SeniorApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR,)
