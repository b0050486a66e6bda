"""REST endpoint of the MCQ item-review queue (item reviewers: arbitrators, admins)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import selectors as mcq_selectors
from heartbench_site.base.roles import HasRole


class ItemQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    question_id = serializers.CharField(source="item.question_id")
    status = serializers.CharField(source="item.status")
    version = serializers.IntegerField(source="item.version")
    options = serializers.IntegerField(source="item.option_count")
    screening_outcome = serializers.CharField(source="screening.outcome", default=None)
    concerns = serializers.ListField(child=serializers.CharField())


class ItemReviewQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(summary="MCQ items awaiting review", responses=ItemQueueRowSerializer(many=True))
    def get(self, request):
        rows = mcq_selectors.item_review_queue(status=request.query_params.get("status"))
        return Response(ItemQueueRowSerializer(rows, many=True).data)
