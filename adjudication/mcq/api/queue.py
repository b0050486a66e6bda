"""The MCQ review queue over REST (/api/items/queue/), for item reviewers (arbitrators,
admins): the items the queue page lists, filtered and ordered as there.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.views import APIView

from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.models import McqScreening
from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema
from core.roles import HasRole

from . import examples


class ItemQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    scenario = serializers.CharField(source="item.scenario.scenario_id")
    status = serializers.CharField(source="item.status")
    version = serializers.IntegerField(source="item.version")
    options = serializers.IntegerField(source="item.option_count")
    screening_outcome = serializers.CharField(source="screening.outcome", default=None)
    concerns = serializers.ListField(child=serializers.CharField())


QUEUE_FILTERS = [
    ListFilter(
        "status",
        "item.status",
        description="flagged or needs_completion (default: both).",
        choices=tuple(str(s) for s in mcq_selectors.REVIEW_QUEUE_STATUSES),
    ),
    ListFilter("character", "item.character.key", description="The target character's key."),
    ListFilter(
        "screening_outcome",
        "screening.outcome",
        description="The latest screening's outcome.",
        choices=tuple(McqScreening.Outcome.values),
    ),
]
QUEUE_ORDERINGS = {
    "question_id": "item.question_id",
    "status": "item.status",
    "version": "item.version",
    "character": "item.character.key",
}


class ItemReviewQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        operation_id="items_queue_list",
        summary="MCQ items awaiting review",
        description="Flagged items and items needing completion, as the item queue page "
        "lists them, with the latest screening's outcome and the rules it did not pass.",
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses={200: paginated_schema(ItemQueueRowSerializer), 400: ERROR, 403: ERROR},
        examples=examples.ITEM_REVIEW_QUEUE_GET,
    )
    def get(self, request):
        rows = mcq_selectors.item_review_queue()
        return list_response(
            request,
            self,
            rows,
            ItemQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )
