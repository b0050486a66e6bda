"""REST endpoints of the blinded comparison (annotators), under /api/compare/.

!!! BLINDING !!!  The serializers name letters and text only, never a candidate id,
family, model or run."""

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.comparison import selectors
from heartbench_site.base.roles import HasRole, Role


class QueueRowSerializer(serializers.Serializer):
    assignment = serializers.CharField(source="public_id")
    character = serializers.CharField(source="character_key")
    scenario = serializers.CharField(source="scenario_id")
    batch = serializers.IntegerField()
    state = serializers.CharField()
    routed = serializers.BooleanField()


class QueueSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    remaining = serializers.IntegerField()
    rows = QueueRowSerializer(many=True)


class BlindMemorySerializer(serializers.Serializer):
    memory_id = serializers.CharField()
    timeline = serializers.CharField()
    content_summary = serializers.CharField()


class BlindCandidateSerializer(serializers.Serializer):
    letter = serializers.CharField()
    summary = serializers.CharField()
    emotional_tone = serializers.CharField()
    core_reasoning = serializers.CharField()
    final_decision = serializers.CharField()
    memories = BlindMemorySerializer(many=True)


class ComparisonPageSerializer(serializers.Serializer):
    assignment = serializers.CharField(source="public_id")
    character = serializers.CharField(source="pair.character.key")
    scenario = serializers.CharField(source="scenario.scenario_id")
    is_open = serializers.BooleanField()
    candidates = BlindCandidateSerializer(many=True)
    submitted_letter = serializers.SerializerMethodField()
    submitted_rating = serializers.SerializerMethodField()

    def get_submitted_letter(self, page) -> str:
        return page.judgment.selected_letter if page.judgment else ""

    def get_submitted_rating(self, page) -> str:
        return page.judgment.rating if page.judgment else ""


class ComparisonQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_queue",
        summary="Your comparison queue, with progress",
        responses=QueueSerializer,
    )
    def get(self, request):
        return Response(QueueSerializer(selectors.comparison_queue(user=request.user)).data)


class ComparisonPairApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_pair",
        summary="One blinded comparison: candidates by letter",
        responses=ComparisonPageSerializer,
    )
    def get(self, request, assignment):
        page = selectors.comparison_page(public_id=assignment, user=request.user)
        if page is None:
            raise Http404
        return Response(ComparisonPageSerializer(page).data)
