"""The reference-label audit over REST (/api/audit/labels/): writes. Each calls the
service the page calls, with the page's form for validation; a service's
``LabelAuditError`` answers 400 with its messages (base.api's exception handler); a
conflict of interest (``LabelAuditConflict``, checked at every act) answers 403.

- The admin creates an audit (team and sample) with the create page's fields.
- An expert saves a draft (PUT .../draft/) and submits (POST .../selection/) blind: the
  answers carry only their own selection. Submitting the same choice again answers 200;
  another choice after submitting 409.
- The audit's adjudicator decides an item without complete agreement (POST
  .../adjudication/): 201; the same decision again 200; another decision on a decided
  item 409; a stale If-Match 412.
"""

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq.models import OPTION_LABELS
from audit.reference_labels import actions, services
from audit.reference_labels.actions import ActionRefused
from audit.reference_labels.api import (
    DETAIL_EXAMPLE,
    EXPERT_ITEM_EXAMPLE,
    OVERSEERS,
    AdjudicationPageSerializer,
    LabelAuditDetailSerializer,
    LabelAuditExpertItemSerializer,
    LabelAuditListApi,
    adjudication_etag,
    adjudication_page_for,
    audit_detail_data,
    expert_item_etag,
    expert_item_response,
    expert_page_or_404,
)
from audit.reference_labels.forms import (
    LabelAdjudicationForm,
    LabelAuditCreateForm,
    LabelSelectionForm,
)
from audit.reference_labels.models import LabelAuditError, LabelAuditItem
from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    domain_error_body,
    require_fresh,
    text_rules_response,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import TEXT, SerializerTextRules

CONFLICT = inline_serializer("LabelAuditConflict", {"detail": serializers.ListField()})


def _conflict(error: LabelAuditError) -> Response:
    return Response(domain_error_body(error), status=status.HTTP_409_CONFLICT)


def _fields(request, names) -> dict:
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


# --- Creating an audit --------------------------------------------------------------------


class LabelAuditCreateSerializer(SerializerTextRules, serializers.Serializer):
    experts = serializers.ListField(child=serializers.IntegerField(), help_text="Three user ids.")
    adjudicator = serializers.IntegerField(help_text="The adjudicator's user id.")
    items_per_stratum = serializers.IntegerField(required=False)
    seed = serializers.IntegerField(required=False, allow_null=True)
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=services.AUDIT_NOTE_MAX
    )


class LabelAuditListCreateApi(LabelAuditListApi):
    write_roles = (Role.ADMIN,)

    @extend_schema(
        summary="Create a reference-label audit: check the team and draw the sample",
        description="The create page: three audit experts and an adjudicator (user ids) "
        "with no part in construction (App. D.4), items per character × life-stage "
        "stratum, and a seed (empty: a fresh one, recorded). 201 with the audit; 400 with "
        "the page's messages (wrong team, conflict of interest, empty final set).",
        request=LabelAuditCreateSerializer,
        responses={201: LabelAuditDetailSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Create",
                value={
                    "experts": [11, 12, 13],
                    "adjudicator": 14,
                    "items_per_stratum": 2,
                    "seed": 31,
                    "note": "spring audit",
                },
                request_only=True,
            ),
            OpenApiExample("Audit", value=DETAIL_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request):
        data = _fields(request, ("experts", "adjudicator", "items_per_stratum", "seed", "note"))
        data.setdefault(
            "items_per_stratum", LabelAuditCreateForm().fields["items_per_stratum"].initial
        )
        audit = actions.label_audit_create(LabelAuditCreateForm(data=data), user=request.user)
        return Response(audit_detail_data(audit), status=status.HTTP_201_CREATED)


# --- An expert's draft and selection (blind) ----------------------------------------------


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
        examples=[
            OpenApiExample("Draft", value={"choice": "A", "note": "Fits"}, request_only=True),
            OpenApiExample("Item", value=EXPERT_ITEM_EXAMPLE, response_only=True),
        ],
    )
    def put(self, request, label_item_id: int):
        expert_page_or_404(label_item_id, request.user)
        require_fresh(request, expert_item_etag(label_item_id, request.user))
        data = _fields(request, ("choice", "note"))
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
        examples=[
            OpenApiExample(
                "Submit", value={"choice": "B", "note": "Fits the profile."}, request_only=True
            ),
            OpenApiExample(
                "Item",
                value=EXPERT_ITEM_EXAMPLE | {"my_choice": "B", "submitted": True},
                response_only=True,
            ),
        ],
    )
    def post(self, request, label_item_id: int):
        page = expert_page_or_404(label_item_id, request.user)
        form = LabelSelectionForm(
            data=_fields(request, ("choice", "note")), audit_item_id=label_item_id
        )
        try:
            actions.label_selection_submit(form, user=request.user, label_item_id=label_item_id)
        except ActionRefused as refused:
            error = refused.cause
            if page.submitted and error and not isinstance(error, services.LabelAuditConflict):
                return _conflict(error)
            raise
        after = expert_page_or_404(label_item_id, request.user)
        code = status.HTTP_200_OK if page.submitted else status.HTTP_201_CREATED
        return expert_item_response(after, request.user, status=code)


# --- The adjudicator's decision -----------------------------------------------------------


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
ADJUDICATION_EXAMPLE = {
    "id": 51,
    "audit": 3,
    "position": 1,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "stage": "school_age",
    "status": "resolved",
    "outcome": "usable_as_is",
    "version_audited": 2,
    "current_version": 2,
    "key_at_audit": "B",
    "experts_on_key": 2,
    "options": [{"label": "B", "content": "...", "is_key": True, "chosen_by": [1, 3]}],
    "selections": [
        {"position": 1, "username": "auditor-1", "choice": "B", "note": "", "on_key": True}
    ],
    "adjudication": {
        "id": 4,
        "decision": "usable_as_is",
        "note": "The dissent does not hold.",
        "new_key": "",
        "adjudicator": "audit-adjudicator",
        "result_version": None,
        "decided_at": "2026-01-05T10:00:00Z",
    },
}


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
        examples=[OpenApiExample("Item", value=ADJUDICATION_EXAMPLE, response_only=True)],
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
        examples=[
            OpenApiExample(
                "Keep",
                value={"decision": "usable_as_is", "note": "The dissent does not hold."},
                request_only=True,
            ),
            OpenApiExample(
                "Key change",
                value={"decision": "key_change", "new_key": "C", "note": "C fits better."},
                request_only=True,
            ),
            OpenApiExample("Decided", value=ADJUDICATION_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request, label_item_id: int):
        page = adjudication_page_for(request, label_item_id)
        if page.audit_item.audit.adjudicator_id != request.user.pk:
            raise PermissionDenied("This item is not awaiting your decision.")
        data = {f"option_{o['label']}": o["content"] for o in page.options}
        data |= _fields(request, ADJUDICATION_FIELDS)
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
                return _conflict(error)
            raise
        return _adjudication_response(request, label_item_id, code=status.HTTP_201_CREATED)
