"""The adjudicator's item page and decision over REST
(/api/audit/labels/items/<id>/adjudication/): only the audit's adjudicator decides an
item without complete agreement; 201, the same decision again 200, another decision on a
decided item 409, a stale If-Match 412.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq.models import OPTION_LABELS
from audit.reference_labels import actions, adjudicator_pages, services
from audit.reference_labels.actions import ActionRefused
from audit.reference_labels.forms import LabelAdjudicationForm
from audit.reference_labels.models import LabelAuditItem
from core.actions import validated
from core.api import ERROR, IF_MATCH, etag, require_fresh, with_etag
from core.roles import HasRole, Role, user_roles
from core.text_rules import TEXT, SerializerTextRules

from . import examples
from .common import CONFLICT, OVERSEERS, conflict_response, request_fields


class AdjudicationOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()
    is_key = serializers.BooleanField()
    chosen_by = serializers.ListField(child=serializers.IntegerField())


class AdjudicationSelectionSerializer(serializers.Serializer):
    position = serializers.IntegerField(allow_null=True)
    username = serializers.CharField()
    choice = serializers.CharField()
    note = serializers.CharField()
    on_key = serializers.BooleanField()


class LabelAdjudicationSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    decision = serializers.CharField()
    note = serializers.CharField()
    new_key = serializers.CharField()
    adjudicator = serializers.CharField(source="adjudicator.username")
    result_version = serializers.IntegerField(
        source="result_version.number", default=None, allow_null=True
    )
    decided_at = serializers.DateTimeField()


class AdjudicationPageSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item.pk")
    audit = serializers.IntegerField(source="audit_item.audit_id")
    position = serializers.IntegerField(source="audit_item.position")
    question_id = serializers.CharField(source="audit_item.item.question_id")
    character = serializers.CharField(source="audit_item.character_key")
    stage = serializers.CharField(source="audit_item.stage")
    status = serializers.CharField(source="audit_item.status")
    outcome = serializers.CharField(source="audit_item.outcome")
    version_audited = serializers.IntegerField(source="audit_item.item_version.number")
    current_version = serializers.IntegerField()
    key_at_audit = serializers.CharField(source="audit_item.key_at_audit")
    experts_on_key = serializers.IntegerField(source="audit_item.n_on_key", allow_null=True)
    options = AdjudicationOptionSerializer(many=True)
    selections = AdjudicationSelectionSerializer(many=True)
    adjudication = LabelAdjudicationSerializer(allow_null=True)


def adjudication_etag(page) -> str:
    row = page.audit_item
    return etag("label-adjudication", row.pk, row.status, page.current_version)


def adjudication_page_for(request, audit_item_id: int):
    """The adjudication page, as the page view allows it: 404 for no such item or one
    still awaiting selections, 403 for anyone but the audit's adjudicator and admins."""
    page = adjudicator_pages.adjudication_page(audit_item_id=audit_item_id)
    if page is None:
        raise NotFound("No such audited item.")
    audit = page.audit_item.audit
    if audit.adjudicator_id != request.user.pk and Role.ADMIN not in user_roles(request.user):
        raise PermissionDenied("You are not this audit's adjudicator.")
    if page.audit_item.status == LabelAuditItem.Status.SELECTING:
        raise NotFound("This item's selections are not all in yet.")
    return page


class AdjudicationRequestSerializer(SerializerTextRules, serializers.Serializer):
    decision = serializers.ChoiceField(
        choices=["usable_as_is", "wording_edit", "key_change", "removal"]
    )
    new_key = serializers.ChoiceField(
        choices=list(OPTION_LABELS), required=False, help_text="key_change: the new key."
    )
    option_A = serializers.CharField(
        required=False, max_length=TEXT, help_text="Default: the audited text."
    )
    option_B = serializers.CharField(required=False, max_length=TEXT)
    option_C = serializers.CharField(required=False, max_length=TEXT)
    option_D = serializers.CharField(required=False, max_length=TEXT)
    note = serializers.CharField(
        required=False, max_length=services.NOTE_MAX, help_text="Required but for usable_as_is."
    )


ADJUDICATION_FIELDS = ("decision", "new_key", "note", *[f"option_{x}" for x in OPTION_LABELS])


def _adjudication_response(request, audit_item_id: int, *, code: int = 200) -> Response:
    page = adjudication_page_for(request, audit_item_id)
    response = Response(AdjudicationPageSerializer(page).data, status=code)
    return with_etag(response, adjudication_etag(page))


class AdjudicationApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = OVERSEERS

    @extend_schema(
        summary="An item without complete agreement, as its adjudicator sees it",
        description="Every expert's selection and note, the key and the options (404 while "
        "selections are still coming in). For the audit's adjudicator and admins.",
        responses={200: AdjudicationPageSerializer, 403: ERROR, 404: ERROR},
        examples=examples.ADJUDICATION_GET,
    )
    def get(self, request, label_item_id: int):
        return _adjudication_response(request, label_item_id)

    @extend_schema(
        summary="Decide an item without complete agreement",
        description="The audit adjudicator's decision (App. D.4): usable_as_is, "
        "wording_edit (the four option texts; missing ones stay as audited), key_change "
        "(new_key), removal. An edit or key change makes a new item version, screened "
        "again; a removal takes the item out of the final set. 201; the same decision "
        "again 200; another decision on a decided item 409; a stale If-Match 412; only the "
        "audit's adjudicator decides (403).",
        parameters=[IF_MATCH],
        request=AdjudicationRequestSerializer,
        responses={
            200: AdjudicationPageSerializer,
            201: AdjudicationPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.ADJUDICATION_POST,
    )
    def post(self, request, label_item_id: int):
        page = adjudication_page_for(request, label_item_id)
        if page.audit_item.audit.adjudicator_id != request.user.pk:
            raise PermissionDenied("This item is not awaiting your decision.")
        data = {f"option_{o['label']}": o["content"] for o in page.options}
        data |= request_fields(request, ADJUDICATION_FIELDS)
        form = LabelAdjudicationForm(data=data, audit_item_id=label_item_id)
        cleaned = validated(form)
        done = page.adjudication
        if done is not None and done.decision == cleaned["decision"]:
            if done.new_key == (cleaned["new_key"] or "").strip().upper() or not done.new_key:
                return _adjudication_response(request, label_item_id)
        if page.audit_item.status == LabelAuditItem.Status.ADJUDICATING:
            require_fresh(request, adjudication_etag(page))
        try:
            actions.label_item_adjudicate(
                form, user=request.user, label_item_id=label_item_id, options=page.options
            )
        except ActionRefused as refused:
            error = refused.cause
            if page.audit_item.status != LabelAuditItem.Status.ADJUDICATING and not isinstance(
                error, services.LabelAuditConflict
            ):
                return conflict_response(error)
            raise
        return _adjudication_response(request, label_item_id, code=status.HTTP_201_CREATED)
