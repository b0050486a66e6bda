"""What the audit's endpoints share: the error and conflict answers, the request body, a
body answered with its ETag, the page's refusal in the API's words, the admin's base view.
"""

import json

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality.actions import ActionRefused
from audit.memory_quality.models import AuditError
from core.api import etag, form_error_response, with_etag
from core.roles import HasRole, Role

ERROR = inline_serializer(
    "AuditErrorResponse",
    {
        "detail": serializers.ListField(child=serializers.CharField()),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)
CONFLICT = inline_serializer("AuditConflictResponse", {"detail": serializers.CharField()})


def error_response(error: AuditError) -> Response:
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def conflict(text: str) -> Response:
    return Response({"detail": text}, status=status.HTTP_409_CONFLICT)


def request_body(request) -> dict:
    if not hasattr(request.data, "get"):
        raise ParseError("Send a JSON object.")
    return request.data


def data_etag(data) -> str:
    return etag(json.dumps(data, sort_keys=True, default=str))


def answer(data, *, code=status.HTTP_200_OK) -> Response:
    return with_etag(Response(data, status=code), data_etag(data))


def refused_response(refused: ActionRefused) -> Response:
    """The page's refusal in the API's words: the form's errors, or the service's."""
    if refused.cause is None:
        return form_error_response(refused.form)
    return error_response(refused.cause)


class AdminApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)
