"""The revise form's draft over REST (/api/items/<id>/revise-draft/): your own draft,
read and saved as the page keeps it.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import revisable, revise_draft_key
from adjudication.mcq.forms import REVISE_DRAFT_FIELDS
from adjudication.mcq.models import OPTION_LABELS
from core import drafts
from core.api import ERROR, IF_MATCH, etag, require_fresh, text_rules_response, with_etag
from core.roles import HasRole
from core.text_rules import NOTE, TEXT, SerializerTextRules

from . import examples
from .common import DETAIL, review_page_or_404


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
        examples=examples.REVISE_DRAFT_GET,
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
        examples=examples.REVISE_DRAFT_PUT,
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
