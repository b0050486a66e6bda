"""One MCQ item over REST (/api/items/<id>/): what its review page shows (the key, the
options' provenance, the judge's assessments, checks and issues, the versions and
decisions; never the judge's model or family), and "screen now" (admins).
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.actions import ActionRefused, revisable
from adjudication.mcq.models import McqItem
from core.api import ERROR, with_etag
from core.roles import HasRole, Role

from . import examples
from .common import DETAIL, detail_response, item_etag, review_page_or_404


class ItemOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()
    is_correct = serializers.BooleanField()
    is_generated = serializers.BooleanField()
    source_character = serializers.CharField()


class ItemScreeningSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    item_version = serializers.IntegerField(source="item_version.number")
    outcome = serializers.CharField()
    needs_human_review = serializers.BooleanField()
    attempts = serializers.IntegerField()
    attempt_errors = serializers.JSONField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ItemVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    origin = serializers.CharField()
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", default=None)
    created_at = serializers.DateTimeField()


class ReviewDecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    item = serializers.IntegerField(source="item_id")
    action = serializers.CharField()
    item_version = serializers.IntegerField(source="item_version.number")
    result_version = serializers.IntegerField(
        source="result_version.number", default=None, allow_null=True
    )
    reviewer = serializers.CharField(source="reviewer.username")
    note = serializers.CharField()
    decided_at = serializers.DateTimeField()


class ReplacementReferenceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="character.key")
    content = serializers.CharField(source="final_decision")


class ItemDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    scenario = serializers.CharField(source="item.scenario.scenario_id")
    stage = serializers.CharField(source="item.stage")
    status = serializers.CharField(source="item.status")
    version = serializers.IntegerField(source="item.version")
    correct_answer = serializers.CharField(source="item.correct_answer")
    options = ItemOptionSerializer(many=True)
    screening = ItemScreeningSerializer(allow_null=True)
    checks = serializers.JSONField(help_text="The latest screening's rule checks.")
    issues = serializers.JSONField(help_text="The latest screening's issues.")
    assessments = serializers.JSONField(help_text="The judge's assessment per option label.")
    candidates = serializers.SerializerMethodField()
    versions = ItemVersionSerializer(many=True)
    decisions = ReviewDecisionSerializer(many=True)
    replacement_references = ReplacementReferenceSerializer(many=True)
    revisable = serializers.SerializerMethodField()

    def get_candidates(self, page) -> list[dict]:
        keep = ("character", "similarity_to_key", "relevance", "rejected", "selected")
        return [{k: c.get(k) for k in keep} for c in page.candidates]

    def get_revisable(self, page) -> bool:
        return revisable(page)


class ItemDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        summary="One MCQ item as its review page shows it",
        description="Options with the key and their provenance, the latest screening's "
        "checks and issues, versions and review decisions. The ETag changes with the item's "
        "version and status; send it as If-Match with a review action.",
        responses={200: ItemDetailSerializer, 403: ERROR, 404: ERROR},
        examples=examples.ITEM_DETAIL_GET,
    )
    def get(self, request, item_id: int):
        page = review_page_or_404(item_id)
        return with_etag(Response(ItemDetailSerializer(page).data), item_etag(page.item))


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
        examples=examples.SCREEN_ITEM_POST,
    )
    def post(self, request, item_id: int):
        try:
            actions.item_screen(item_id=item_id, user=request.user)
        except McqItem.DoesNotExist:
            raise NotFound("No such MCQ item.") from None
        except ActionRefused as refused:
            return detail_response(str(refused.cause), status.HTTP_409_CONFLICT)
        return detail_response("Screening queued.", status.HTTP_202_ACCEPTED)
