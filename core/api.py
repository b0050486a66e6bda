"""Pieces every workflow's REST API shares (issue #23).

- ``exception_handler``: a service's ``ValidationError`` (the domain errors of the
  workflows: ``ReviewError``, ``ComparisonError``, ``ArbitrationError`` ...) answers 400
  with the service's own messages, field by field where the service names fields, so a
  script gets the words a page shows. Shape: ``{"detail": [...], "fields": {name: [...]}}``.
- ``list_response``: filtering, ordering and pagination for every list, over a queryset
  or a list of rows, with the accepted parameters documented in the schema
  (``list_parameters``). An unknown ordering or a bad filter value is a 400 naming the
  parameter.
- ``etag`` / ``with_etag`` / ``require_fresh``: optimistic concurrency. A read carries an
  ``ETag``; a write sent with ``If-Match`` naming an older one is refused with 412, so a
  script never overwrites what someone changed after it read.
"""

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.actions import ActionRefused, cause_messages
from core.conflicts import ConflictOfInterest

# --- Errors -------------------------------------------------------------------------------

ERROR = inline_serializer(
    "DomainErrorResponse",
    {
        "detail": serializers.ListField(child=serializers.CharField()),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)


def domain_error_body(error: DjangoValidationError) -> dict:
    """``{"detail": [every message], "fields": {field: [messages]}}`` of a service error."""
    fields = {}
    if hasattr(error, "error_dict"):
        for name, errors in error.error_dict.items():
            fields[name] = [m for e in errors for m in e.messages]
    body = {"detail": list(error.messages)}
    if fields:
        body["fields"] = fields
    return body


def domain_error_response(error: DjangoValidationError) -> Response:
    return Response(domain_error_body(error), status=status.HTTP_400_BAD_REQUEST)


def form_error_response(form) -> Response:
    """400 with a bound Django form's errors, in the shape of ``domain_error_body``: the
    same messages a page shows beside its fields."""
    fields = {name: list(errors) for name, errors in form.errors.items()}
    detail = [m for errors in fields.values() for m in errors]
    return Response({"detail": detail, "fields": fields}, status=status.HTTP_400_BAD_REQUEST)


def _messages(errors, prefix: str = "") -> list[str]:
    """The messages of a DRF error structure (nested lists and dicts), flattened; a
    nested field's message is prefixed with its place (``age_windows: 0: key: ...``)."""
    if isinstance(errors, dict):
        return [m for key, value in errors.items() for m in _messages(value, f"{prefix}{key}: ")]
    if isinstance(errors, list):
        return [m for value in errors for m in _messages(value, prefix)]
    return [f"{prefix}{errors}"]


def serializer_error_response(serializer) -> Response:
    """400 with a validated serializer's errors, in the shape of ``domain_error_body``."""
    fields = {name: _messages(errors) for name, errors in serializer.errors.items()}
    detail = [f"{name}: {m}" for name, messages in fields.items() for m in messages]
    return Response({"detail": detail, "fields": fields}, status=status.HTTP_400_BAD_REQUEST)


def exception_handler(exc, context):
    """DRF's handler, plus: a Django ``ValidationError`` raised by a service is a 400 with
    the service's messages (never a 500); a conflict of interest is a 403 (issue #24); an
    action refused (issue #33) answers its form's errors, or its service's error as above."""
    if isinstance(exc, ActionRefused):
        return action_refused_response(exc, context)
    if isinstance(exc, ConflictOfInterest):
        return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, DjangoValidationError):
        return domain_error_response(exc)
    return drf_exception_handler(exc, context)


def action_refused_response(refused: ActionRefused, context=None) -> Response:
    """The API's answer to an action the page would refuse with the same words: the form's
    field errors (``form_error_response``), or the service's error as the handler answers
    it (a domain error that is no ``ValidationError`` is a 400 with its text)."""
    cause = refused.cause
    if cause is None:
        return form_error_response(refused.form)
    if isinstance(cause, DjangoValidationError):
        return exception_handler(cause, context)
    return Response({"detail": cause_messages(cause)}, status=status.HTTP_400_BAD_REQUEST)


class PreconditionFailed(APIException):
    status_code = status.HTTP_412_PRECONDITION_FAILED
    default_detail = (
        "This record changed since you read it: fetch it again, check the change, then "
        "send your write with the new ETag in If-Match."
    )
    default_code = "stale"


# --- Versions (ETags) ---------------------------------------------------------------------


def etag(*parts) -> str:
    """A strong ETag over the parts that change whenever the record changes (a version
    number, an ``updated_at``, a status)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]
    return f'"{digest}"'


def with_etag(response: Response, tag: str) -> Response:
    response["ETag"] = tag
    return response


def require_fresh(request, current: str) -> None:
    """Refuse (412) a write whose ``If-Match`` names another version than ``current``.
    A write without ``If-Match`` is accepted: the services' own checks still apply."""
    sent = request.headers.get("If-Match")
    if not sent or sent.strip() == "*":
        return
    tags = {t.strip().removeprefix("W/") for t in sent.split(",")}
    if current not in tags:
        raise PreconditionFailed()


IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag of the read this write is based on; a stale one answers 412.",
)


# --- Lists --------------------------------------------------------------------------------


class ApiPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


@dataclass(frozen=True)
class ListFilter:
    """One ``?name=value`` filter. ``field`` is an ORM lookup for querysets, or a dotted
    attribute path for lists of rows. ``kind`` is ``str``, ``int`` or ``bool``."""

    name: str
    field: str
    kind: type = str
    description: str = ""
    choices: tuple = ()

    def parse(self, raw: str):
        if "\x00" in raw:
            raise ParseError({self.name: ["A filter value cannot hold a NUL character."]})
        if self.kind is int:
            try:
                return int(raw)
            except ValueError:
                raise ParseError({self.name: [f"'{raw}' is not a whole number."]}) from None
        if self.kind is bool:
            lowered = raw.lower()
            if lowered not in ("true", "false", "1", "0"):
                raise ParseError({self.name: ["Use true or false."]})
            return lowered in ("true", "1")
        if self.choices and raw not in self.choices:
            raise ParseError({self.name: [f"Choose one of: {', '.join(self.choices)}."]})
        return raw


def list_parameters(
    filters: Iterable[ListFilter] = (), orderings: Iterable[str] = ()
) -> list[OpenApiParameter]:
    """The query parameters ``list_response`` accepts, for ``extend_schema(parameters=)``."""
    params = [
        OpenApiParameter(
            f.name,
            {str: str, int: int, bool: bool}[f.kind],
            description=f.description or f"Only rows whose {f.name} is this value.",
            enum=list(f.choices) or None,
        )
        for f in filters
    ]
    orderings = list(orderings)
    if orderings:
        params.append(
            OpenApiParameter(
                "ordering",
                str,
                description=(
                    "Comma-separated fields, '-' for descending. One of: " + ", ".join(orderings)
                ),
            )
        )
    params += [
        OpenApiParameter("page", int, description="Page number, from 1."),
        OpenApiParameter("page_size", int, description="Rows per page (default 50, max 500)."),
    ]
    return params


def _value(row, path: str):
    """``row``'s value at a dotted (or ``__``) path; None when a step on the way is None."""
    if isinstance(row, dict):
        return row[path]
    value = row
    for step in path.replace("__", ".").split("."):
        if value is None:
            return None
        value = getattr(value, step)
    return value


def filter_and_order(
    request,
    rows,
    *,
    filters: Iterable[ListFilter] = (),
    orderings: dict[str, str] | Iterable[str] = (),
):
    """``rows`` (a queryset or a list) narrowed by the request's filters and ordered by
    its ``ordering``. ``orderings`` maps a public name to a field (ORM name or attribute
    path); a list of names maps each to itself."""
    if not isinstance(orderings, dict):
        orderings = {name: name for name in orderings}
    params = request.query_params
    for spec in filters:
        raw = params.get(spec.name)
        if raw is None or raw == "":
            continue
        wanted = spec.parse(raw)
        if isinstance(rows, QuerySet):
            rows = rows.filter(**{spec.field: wanted})
        else:
            rows = [r for r in rows if _value(r, spec.field) == wanted]
    ordering = params.get("ordering")
    if ordering:
        keys = [k.strip() for k in ordering.split(",") if k.strip()]
        unknown = [k for k in keys if k.lstrip("-") not in orderings]
        if unknown:
            raise ParseError(
                {
                    "ordering": [
                        f"Cannot order by {', '.join(unknown)}; use one of: {', '.join(orderings)}."
                    ]
                }
            )
        if isinstance(rows, QuerySet):
            fields = [("-" if k.startswith("-") else "") + orderings[k.lstrip("-")] for k in keys]
            rows = rows.order_by(*fields, "pk")
        else:
            rows = list(rows)
            for key in reversed(keys):
                field = orderings[key.lstrip("-")]
                rows.sort(
                    key=lambda r, f=field: _sort_key(_value(r, f)), reverse=key.startswith("-")
                )
    return rows


def _sort_key(value):
    # None sorts first; mixed types never compare (every row of a column has one type).
    return (value is not None, value if value is not None else 0)


def list_response(
    request,
    view,
    rows,
    serializer_class: type[serializers.BaseSerializer],
    *,
    filters: Iterable[ListFilter] = (),
    orderings: dict[str, str] | Iterable[str] = (),
    context: dict | None = None,
    serialize: Callable | None = None,
) -> Response:
    """Filter, order and paginate ``rows``, then serialize the page:
    ``{"count", "next", "previous", "results"}`` (DRF's page-number shape)."""
    rows = filter_and_order(request, rows, filters=filters, orderings=orderings)
    paginator = ApiPagination()
    page = paginator.paginate_queryset(rows, request, view=view)
    if serialize is not None:
        data = serialize(page)
    else:
        data = serializer_class(page, many=True, context=context or {"request": request}).data
    return paginator.get_paginated_response(data)


def paginated_schema(serializer_class) -> serializers.Serializer:
    """The page-number envelope around ``serializer_class`` rows, for ``extend_schema``."""
    name = getattr(serializer_class, "__name__", type(serializer_class).__name__)
    return inline_serializer(
        f"Paginated{name.removesuffix('Serializer')}List",
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer_class(many=True),
        },
    )


def text_rules_response(serializer_class, data) -> Response | None:
    """400 naming each text field of ``data`` that breaks the text rules (issue #24: its
    limit, control characters), checked with ``serializer_class``'s text fields before
    anything is saved; None when they all keep them. Choice and other fields are left to
    the form or the service, with their own messages."""
    from rest_framework import serializers as drf

    names = {
        name
        for name, field in serializer_class().get_fields().items()
        if isinstance(field, drf.CharField) and not isinstance(field, drf.ChoiceField)
    }
    texts = serializer_class(data={n: data[n] for n in names if n in data}, partial=True)
    if texts.is_valid():
        return None
    fields = {name: [str(m) for m in errors] for name, errors in texts.errors.items()}
    detail = [m for errors in fields.values() for m in errors]
    return Response({"detail": detail, "fields": fields}, status=status.HTTP_400_BAD_REQUEST)
