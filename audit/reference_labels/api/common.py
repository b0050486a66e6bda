"""What the label audit's endpoints share: who may read an audit, the adjudicator's or
admin's audit or a 403, the 409 of a conflicting act, and the request's fields.
"""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response

from audit.reference_labels import selectors
from audit.reference_labels.models import LabelAudit, LabelAuditError
from core.api import domain_error_body
from core.roles import Role, user_roles

MEMBERS = (Role.AUDIT_EXPERT, Role.AUDIT_ADJUDICATOR, Role.ADMIN)
OVERSEERS = (Role.AUDIT_ADJUDICATOR, Role.ADMIN)


def overseer_audit(request, audit_id: int) -> LabelAudit:
    """The audit, for an admin or for its own adjudicator (as the pages: 404, then 403)."""
    audit = selectors.label_audit_get(audit_id=audit_id)
    if audit is None:
        raise NotFound("No such reference-label audit.")
    if Role.ADMIN not in user_roles(request.user) and audit.adjudicator_id != request.user.pk:
        raise PermissionDenied("You are not this audit's adjudicator.")
    return audit


CONFLICT = inline_serializer("LabelAuditConflict", {"detail": serializers.ListField()})


def conflict_response(error: LabelAuditError) -> Response:
    return Response(domain_error_body(error), status=status.HTTP_409_CONFLICT)


def request_fields(request, names) -> dict:
    """The request's values of ``names`` (lists kept), leaving out absent and null ones."""
    data = {}
    for name in names:
        if name not in request.data or request.data.get(name) is None:
            continue
        getlist = getattr(request.data, "getlist", None)
        value = request.data[name]
        if getlist is not None and name == "experts":
            value = getlist(name)
        data[name] = value
    return data
