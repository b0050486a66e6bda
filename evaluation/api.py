"""Evaluation runs over REST (/api/evaluation/): read-only run progress for admins."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from heartbench_site.base.roles import HasRole, Role

from . import selectors
from .models import EvaluationRun


class EvaluationRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    label = serializers.CharField()
    setting = serializers.CharField()
    origin = serializers.CharField()
    status = serializers.CharField(help_text=", ".join(EvaluationRun.Status.values))
    item_set = serializers.CharField()
    total = serializers.IntegerField(source="progress.total")
    done = serializers.IntegerField(source="progress.done")
    answered = serializers.IntegerField(source="progress.answered")
    invalid = serializers.IntegerField(source="progress.invalid")
    leak_blocked = serializers.IntegerField(source="progress.leak_blocked")
    failed = serializers.IntegerField(source="progress.failed")
    percent = serializers.IntegerField(source="progress.percent")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class EvaluationRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(summary="Evaluation runs", responses=EvaluationRunSerializer(many=True))
    def get(self, request):
        return Response(EvaluationRunSerializer(selectors.run_list()[:200], many=True).data)


class EvaluationRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(summary="One evaluation run's progress", responses=EvaluationRunSerializer)
    def get(self, request, run_id: int):
        run = selectors.run_get(run_id=run_id)
        if run is None:
            raise NotFound("No such evaluation run.")
        return Response(EvaluationRunSerializer(run).data)
