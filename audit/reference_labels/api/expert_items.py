"""An expert's items over REST (/api/audit/labels/<id>/mine/, items/<id>/, draft/,
selection/), blind: expert_pages dataclasses with option labels and texts and the
expert's own selection, never the key or anyone else's selection. A draft is saved with
PUT .../draft/ and submitted with POST .../selection/; the same choice again answers 200,
another choice after submitting 409.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq.models import OPTION_LABELS
from audit.reference_labels import actions, expert_pages, selectors, services
from audit.reference_labels.actions import ActionRefused
from audit.reference_labels.forms import LabelSelectionForm
from audit.reference_labels.models import LabelSelection
from core.api import (
    ERROR,
    IF_MATCH,
    ListFilter,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
    text_rules_response,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules

from . import examples
from .common import CONFLICT, conflict_response, request_fields


class LabelAuditBlindOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()


class LabelAuditExpertItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item_id")
    position = serializers.IntegerField()
    question_id = serializers.CharField()
    character = serializers.CharField(source="character_key")
    scenario = serializers.CharField(source="scenario.scenario_id")
    options = LabelAuditBlindOptionSerializer(many=True)
    my_choice = serializers.CharField(source="choice", allow_blank=True)
    my_note = serializers.CharField(source="note", allow_blank=True)
    submitted = serializers.BooleanField()
    draft_saved_at = serializers.DateTimeField(allow_null=True)
    next_item = serializers.IntegerField(source="next_item_id", allow_null=True)


def expert_item_etag(audit_item_id: int, expert) -> str:
    """The expert's own selection on the item: changes with each draft save and submit."""
    mine = LabelSelection.objects.filter(audit_item_id=audit_item_id, expert=expert).first()
    stamp = (mine.updated_at.isoformat(), mine.submitted_at) if mine else ("", "")
    return etag("label-selection", audit_item_id, expert.pk, *stamp)


def expert_page_or_404(audit_item_id: int, expert):
    page = expert_pages.expert_item_page(audit_item_id=audit_item_id, expert=expert)
    if page is None:
        raise NotFound("This item is not in an audit you are an expert on.")
    return page


def expert_item_response(page, expert, *, status: int = 200) -> Response:
    response = Response(LabelAuditExpertItemSerializer(page).data, status=status)
    return with_etag(response, expert_item_etag(page.audit_item_id, expert))


class LabelAuditExpertQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="audit_item_id")
    position = serializers.IntegerField()
    question_id = serializers.CharField()
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField(source="stage_label")
    state = serializers.CharField(help_text="Your own progress: todo, draft, submitted.")


QUEUE_FILTERS = [
    ListFilter(
        "state",
        "state",
        description="Your own progress on the item.",
        choices=("todo", "draft", "submitted"),
    )
]
QUEUE_ORDERINGS = ("position", "question_id", "state")


class ExpertQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        operation_id="audit_labels_mine_list",
        summary="Your items in one audit, with your own progress",
        description="Sample order; nothing about the other experts or the key.",
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses={
            200: paginated_schema(LabelAuditExpertQueueRowSerializer),
            400: ERROR,
            403: ERROR,
            404: ERROR,
        },
        examples=examples.EXPERT_QUEUE_GET,
    )
    def get(self, request, label_audit_id: int):
        audit = selectors.label_audit_get(audit_id=label_audit_id)
        if audit is None or not selectors.is_expert(audit=audit, user=request.user):
            raise NotFound("You are not an expert on this audit.")
        rows = expert_pages.expert_queue(audit=audit, expert=request.user)
        return list_response(
            request,
            self,
            rows,
            LabelAuditExpertQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )


class ExpertItemApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="One item as you audit it: options in order and your selection",
        description="The options' labels and texts only (no key, no provenance) and your "
        "own draft or submitted selection. The ETag changes with your selection.",
        responses={200: LabelAuditExpertItemSerializer, 403: ERROR, 404: ERROR},
        examples=examples.EXPERT_ITEM_GET,
    )
    def get(self, request, label_item_id: int):
        page = expert_page_or_404(label_item_id, request.user)
        return expert_item_response(page, request.user)


class SelectionSerializer(SerializerTextRules, serializers.Serializer):
    choice = serializers.ChoiceField(choices=list(OPTION_LABELS))
    note = serializers.CharField(required=False, allow_blank=True, max_length=services.NOTE_MAX)


class SelectionDraftSerializer(SerializerTextRules, serializers.Serializer):
    choice = serializers.ChoiceField(choices=list(OPTION_LABELS), required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, max_length=services.NOTE_MAX)


class ExpertDraftApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="Save your draft selection on an item",
        description="The select page's autosave: your choice (or none yet) and note, kept "
        "until you submit. 400 once you have submitted; a stale If-Match 412.",
        parameters=[IF_MATCH],
        request=SelectionDraftSerializer,
        responses={200: LabelAuditExpertItemSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
        examples=examples.EXPERT_DRAFT_PUT,
    )
    def put(self, request, label_item_id: int):
        expert_page_or_404(label_item_id, request.user)
        require_fresh(request, expert_item_etag(label_item_id, request.user))
        data = request_fields(request, ("choice", "note"))
        refused = text_rules_response(SelectionDraftSerializer, data)
        if refused is not None:  # refused, nothing saved (issue #24)
            return refused
        services.label_selection_draft_save(
            audit_item_id=label_item_id,
            expert=request.user,
            choice=str(data.get("choice", "")),
            note=str(data.get("note", "")),
        )
        return expert_item_response(expert_page_or_404(label_item_id, request.user), request.user)


class ExpertSelectionApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.AUDIT_EXPERT,)

    @extend_schema(
        summary="Submit your blind selection on an item",
        description="Final once submitted (App. D.4 compares the first selections); the "
        "third expert's submission compares the three with the key. 201 with your item; "
        "the same choice again 200; another choice after submitting 409.",
        request=SelectionSerializer,
        responses={
            200: LabelAuditExpertItemSerializer,
            201: LabelAuditExpertItemSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
        },
        examples=examples.EXPERT_SELECTION_POST,
    )
    def post(self, request, label_item_id: int):
        page = expert_page_or_404(label_item_id, request.user)
        form = LabelSelectionForm(
            data=request_fields(request, ("choice", "note")), audit_item_id=label_item_id
        )
        try:
            actions.label_selection_submit(form, user=request.user, label_item_id=label_item_id)
        except ActionRefused as refused:
            error = refused.cause
            if page.submitted and error and not isinstance(error, services.LabelAuditConflict):
                return conflict_response(error)
            raise
        after = expert_page_or_404(label_item_id, request.user)
        code = status.HTTP_200_OK if page.submitted else status.HTTP_201_CREATED
        return expert_item_response(after, request.user, status=code)
