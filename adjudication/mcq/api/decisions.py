"""Review decisions over REST (/api/items/<id>/decisions/): the actions the item page
offers, each through the page's form and service.

A review action names the version it was decided on (``version`` in the body, or the
item's ETag in ``If-Match``); another version answers 412 (the page's "changed since you
opened it"), an item no longer under review 409, the same action sent again 200 with the
first decision.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import ActionRefused
from adjudication.mcq.forms import ReviewDecisionForm
from adjudication.mcq.models import (
    OPTION_LABELS,
    McqItem,
    McqNotReviewable,
    McqReviewDecision,
    McqStaleVersion,
)
from core.actions import validated
from core.api import ERROR, IF_MATCH, PreconditionFailed, require_fresh, with_etag
from core.roles import HasRole
from core.text_rules import NOTE, TEXT, SerializerTextRules

from . import examples
from .common import DETAIL, detail_response, item_etag
from .items import ReviewDecisionSerializer

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
        examples=examples.REVIEW_ACTION_POST,
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
                return detail_response(str(refused.cause), status.HTTP_409_CONFLICT)
            raise  # 400 with the page's message (core.api.exception_handler)
        item.refresh_from_db()
        response = Response(ReviewDecisionSerializer(decision).data, status=201)
        return with_etag(response, item_etag(item))
