"""REST writes of MCQ item review and assembly, under /api/items/: the review actions
the item page offers, its revise-form draft, "screen now" and assembly runs. Each calls
the service the page calls, with the page's form for validation.

- A review action names the version it was decided on (``version`` in the body, or the
  item's ETag in ``If-Match``); another version answers 412 (the page's "changed since you
  opened it"), an item no longer under review 409, the same action sent again 200 with the
  first decision.
"""

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import ActionRefused, revisable, revise_draft_key
from adjudication.mcq.api import (
    RUN_EXAMPLE,
    RUN_FILTERS,
    RUN_ORDERINGS,
    AssemblyRunSerializer,
    ReviewDecisionSerializer,
    assembly_runs_queryset,
    item_etag,
    review_page_or_404,
)
from adjudication.mcq.forms import REVISE_DRAFT_FIELDS, AssemblyRunForm, ReviewDecisionForm
from adjudication.mcq.models import (
    OPTION_LABELS,
    McqItem,
    McqNotReviewable,
    McqReviewDecision,
    McqStaleVersion,
)
from core import drafts
from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    PreconditionFailed,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
    serializer_error_response,
    text_rules_response,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import NAME, NOTE, TEXT, SerializerTextRules

DETAIL = inline_serializer("McqDetail", {"detail": serializers.CharField()})


def _detail(message: str, code: int) -> Response:
    return Response({"detail": message}, status=code)


# --- Review actions -----------------------------------------------------------------------

REVIEW_FIELDS = ("action", "version", "label", "content", "reference_id", "note")


class ReviewActionSerializer(SerializerTextRules, serializers.Serializer):
    action = serializers.ChoiceField(choices=McqReviewDecision.Action.choices)
    version = serializers.IntegerField(
        required=False, help_text="The version you decided on (default: the current one)."
    )
    label = serializers.ChoiceField(
        choices=OPTION_LABELS, required=False, help_text="The option to change."
    )
    content = serializers.CharField(
        required=False, max_length=TEXT, help_text="A distractor's new text."
    )
    reference_id = serializers.IntegerField(
        required=False, help_text="The replacement reference (replace_distractor)."
    )
    note = serializers.CharField(
        required=False,
        max_length=NOTE,
        help_text="Why; required for retain, reconsider_key and remove.",
    )


def _replayed(item: McqItem, *, user, action: str, version: int, note: str):
    """The caller's decision this same action already made on this version, if any."""
    last = (
        item.review_decisions.select_related("item_version", "result_version", "reviewer")
        .order_by("-decided_at", "-pk")
        .first()
    )
    if (
        last is not None
        and last.reviewer_id == user.pk
        and last.action == action
        and last.item_version.number == version
        and last.note == (note or "").strip()
    ):
        return last
    return None


class ReviewActionApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        summary="Take a review action on a flagged or incomplete item",
        description="The item page's actions (App. D.3.1): retain, revise_distractor, "
        "replace_distractor, generate_distractor, reconsider_key, reconstruct, remove. An "
        "edit makes a new version, screened again in full. 201 with the decision; the same "
        "action sent again 200 with it; a stale version or If-Match 412; an item no longer "
        "under review 409; a refused action 400 with the page's message.",
        parameters=[IF_MATCH],
        request=ReviewActionSerializer,
        responses={
            200: ReviewDecisionSerializer,
            201: ReviewDecisionSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: DETAIL,
            412: DETAIL,
        },
        examples=[
            OpenApiExample(
                "Revise a distractor",
                value={
                    "action": "revise_distractor",
                    "version": 1,
                    "label": "C",
                    "content": "I water the plants early on Saturday, then join Mom.",
                    "note": "R2: two distractors said the same",
                },
                request_only=True,
            ),
            OpenApiExample(
                "Retain",
                value={"action": "retain", "version": 2, "note": "The key holds."},
                request_only=True,
            ),
            OpenApiExample(
                "Decision",
                value={
                    "id": 7,
                    "item": 12,
                    "action": "retain",
                    "item_version": 2,
                    "result_version": None,
                    "reviewer": "senior-1",
                    "note": "The key holds.",
                    "decided_at": "2026-01-05T10:00:00Z",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request, item_id: int):
        item = McqItem.objects.filter(pk=item_id).first()
        if item is None:
            raise NotFound("No such MCQ item.")
        data = {k: request.data.get(k) for k in REVIEW_FIELDS if request.data.get(k) is not None}
        data.setdefault("version", item.version)
        form = ReviewDecisionForm(data=data)
        cleaned = validated(form)
        replay = _replayed(
            item,
            user=request.user,
            action=cleaned["action"],
            version=cleaned["version"],
            note=cleaned["note"],
        )
        if replay is not None:
            item.refresh_from_db()
            response = Response(ReviewDecisionSerializer(replay).data)
            return with_etag(response, item_etag(item))
        require_fresh(request, item_etag(item))
        try:
            decision = actions.item_review_decide(form, user=request.user, item=item)
        except ActionRefused as refused:
            if isinstance(refused.cause, McqStaleVersion):
                raise PreconditionFailed(str(refused.cause)) from None
            if isinstance(refused.cause, McqNotReviewable):
                return _detail(str(refused.cause), status.HTTP_409_CONFLICT)
            raise  # 400 with the page's message (core.api.exception_handler)
        item.refresh_from_db()
        response = Response(ReviewDecisionSerializer(decision).data, status=201)
        return with_etag(response, item_etag(item))


# --- The revise form's draft --------------------------------------------------------------


class ReviseDraftSerializer(SerializerTextRules, serializers.Serializer):
    label = serializers.ChoiceField(choices=OPTION_LABELS, required=False, allow_blank=True)
    content = serializers.CharField(required=False, allow_blank=True, max_length=TEXT)
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE)


class ReviseDraftReadSerializer(ReviseDraftSerializer):
    saved_at = serializers.DateTimeField(allow_null=True)


def _draft_body(draft) -> dict:
    values = drafts.form_draft_values(draft)
    body = {f: values.get(f, "") for f in REVISE_DRAFT_FIELDS}
    body["saved_at"] = draft.updated_at if draft is not None else None
    return body


def _draft_etag(key: str, draft) -> str:
    return etag("mcq-revise-draft", key, draft.updated_at.isoformat() if draft else "")


class ReviseDraftApi(APIView):
    """Your own draft of the revise form: one per item version, never shown to others."""

    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        summary="Your draft of an item's revise form",
        description="What you typed in the revise form of this item version, kept until "
        "you take the action. Empty when you have no draft.",
        responses={200: ReviseDraftReadSerializer, 403: ERROR, 404: ERROR},
        examples=[
            OpenApiExample(
                "Draft",
                value={
                    "label": "C",
                    "content": "I water the plants first.",
                    "note": "R2",
                    "saved_at": "2026-01-05T10:00:00Z",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, item_id: int):
        page = review_page_or_404(item_id)
        key = revise_draft_key(page.item)
        draft = drafts.form_draft_get(user=request.user, key=key)
        response = Response(ReviseDraftReadSerializer(_draft_body(draft)).data)
        return with_etag(response, _draft_etag(key, draft))

    @extend_schema(
        summary="Save your draft of an item's revise form",
        description="Only while the item's distractors may be revised (flagged, complete); "
        "otherwise 403 as on the page. If-Match with the draft's ETag refuses a stale save. "
        "A text over its limit or with a control character answers 400 naming the field; "
        "nothing is saved.",
        parameters=[IF_MATCH],
        request=ReviseDraftSerializer,
        responses={
            200: ReviseDraftReadSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: DETAIL,
        },
        examples=[
            OpenApiExample(
                "Save",
                value={"label": "C", "content": "I water the plants first.", "note": "R2"},
                request_only=True,
            )
        ],
    )
    def put(self, request, item_id: int):
        page = review_page_or_404(item_id)
        if not revisable(page):
            raise PermissionDenied("This item is not open for revision.")
        key = revise_draft_key(page.item)
        require_fresh(request, _draft_etag(key, drafts.form_draft_get(user=request.user, key=key)))
        refused = text_rules_response(ReviseDraftSerializer, request.data)
        if refused is not None:  # refused, nothing saved (issue #24)
            return refused
        values = {
            f: [str(request.data[f])]
            for f in REVISE_DRAFT_FIELDS
            if request.data.get(f) is not None
        }
        draft = drafts.form_draft_save(
            user=request.user, key=key, data=values, fields=REVISE_DRAFT_FIELDS
        )
        response = Response(ReviseDraftReadSerializer(_draft_body(draft)).data)
        return with_etag(response, _draft_etag(key, draft))


# --- Screening and assembly (admins) ------------------------------------------------------


class ScreenItemApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="Queue the screening of an item awaiting it",
        description='The item page\'s "screen now": queues the Celery task that screens '
        "the item's current version (App. D.3.1). 202; 409 when the item is not awaiting "
        "screening.",
        request=None,
        responses={202: DETAIL, 403: ERROR, 404: ERROR, 409: DETAIL},
        examples=[
            OpenApiExample("Queued", value={"detail": "Screening queued."}, response_only=True)
        ],
    )
    def post(self, request, item_id: int):
        try:
            actions.item_screen(item_id=item_id)
        except McqItem.DoesNotExist:
            raise NotFound("No such MCQ item.") from None
        except ActionRefused as refused:
            return _detail(str(refused.cause), status.HTTP_409_CONFLICT)
        return _detail("Screening queued.", status.HTTP_202_ACCEPTED)


class AssemblyRunRequestSerializer(SerializerTextRules, serializers.Serializer):
    measure = serializers.CharField(
        required=False, max_length=NAME, help_text="A registered similarity measure."
    )
    similarity_max = serializers.FloatField(required=False)
    relevance_min = serializers.FloatField(required=False)
    include_unadjudicated = serializers.BooleanField(required=False)
    gate_override_reason = serializers.CharField(required=False, max_length=NOTE)


class AssemblyRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        operation_id="items_assembly_list",
        summary="Assembly runs, newest first",
        description="Every run with its parameters and progress.",
        parameters=list_parameters(RUN_FILTERS, RUN_ORDERINGS),
        responses={200: paginated_schema(AssemblyRunSerializer), 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Runs",
                value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request):
        return list_response(
            request,
            self,
            assembly_runs_queryset(),
            AssemblyRunSerializer,
            filters=RUN_FILTERS,
            orderings=RUN_ORDERINGS,
        )

    @extend_schema(
        summary="Start an assembly run",
        description="The assembly page's form: a Celery worker assembles every pair with an "
        "adjudicated reference and no item, then each item is screened. Fields default to "
        "the page's; include_unadjudicated (a protocol deviation) needs "
        "gate_override_reason. 201 with the run (poll /api/items/assembly/{id}/); 400 with "
        "the page's message when another run is queued or running.",
        request=AssemblyRunRequestSerializer,
        responses={201: AssemblyRunSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Start",
                value={"measure": "tfidf", "similarity_max": 0.8, "relevance_min": 0.05},
                request_only=True,
            ),
            OpenApiExample("Run", value=RUN_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request):
        incoming = AssemblyRunRequestSerializer(data=request.data)
        if not incoming.is_valid():
            # Shape first (a list body, a nested object, a word for a number): 400, not 500.
            return serializer_error_response(incoming)
        initial = {name: field.initial for name, field in AssemblyRunForm().fields.items()}
        data = {k: v for k, v in initial.items() if v is not None}
        data |= {k: v for k, v in incoming.validated_data.items() if v is not None}
        if data.get("include_unadjudicated") in (False, "false", "False", "0", ""):
            data.pop("include_unadjudicated")
        run = actions.assembly_run_start(AssemblyRunForm(data=data), user=request.user)
        return Response(AssemblyRunSerializer(run).data, status=status.HTTP_201_CREATED)
