"""The memory quality audit over REST (/api/audit/): read-only views of runs, their
progress and outcomes, and the flagged-memory queue. Thin: selector → serializer."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality import selectors
from audit.memory_quality.models import AuditRun, MemoryCase
from heartbench_site.base.roles import HasRole, Role


class MemoryAuditRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text=", ".join(AuditRun.Status.values))
    settings_version = serializers.IntegerField(source="settings_version.number")
    memory_total = serializers.IntegerField()
    memory_done = serializers.IntegerField()
    percent = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class MemoryAuditOutcomeRowSerializer(serializers.Serializer):
    character = serializers.CharField()
    memories = serializers.IntegerField()
    passed_initial = serializers.IntegerField()
    passed_after_rewriting = serializers.IntegerField()
    escalated = serializers.IntegerField()
    revised_by_senior = serializers.IntegerField()
    false_positive = serializers.IntegerField()
    open = serializers.IntegerField()


class MemoryAuditCriterionRowSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    label = serializers.CharField()
    flags = serializers.IntegerField()
    memories = serializers.IntegerField()


class MemoryAuditRunDetailSerializer(MemoryAuditRunSerializer):
    outcomes = MemoryAuditOutcomeRowSerializer(many=True)
    overall = MemoryAuditOutcomeRowSerializer()
    flags_per_criterion = MemoryAuditCriterionRowSerializer(many=True)


class MemoryAuditFlagSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    field = serializers.CharField()
    detail = serializers.CharField()


class MemoryAuditCaseSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    memory_id = serializers.CharField(source="memory.memory_id")
    character = serializers.CharField(source="character.key")
    status = serializers.CharField(help_text=", ".join(MemoryCase.Status.values))
    run = serializers.IntegerField(source="run_id")
    repair_attempts = serializers.IntegerField(source="attempt_count")
    current_flags = MemoryAuditFlagSerializer(many=True)


class AuditRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(summary="Memory audit runs", responses=MemoryAuditRunSerializer(many=True))
    def get(self, request):
        return Response(MemoryAuditRunSerializer(selectors.audit_run_list()[:100], many=True).data)


class AuditRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One memory audit run: progress and outcomes",
        responses=MemoryAuditRunDetailSerializer,
    )
    def get(self, request, run_id: int):
        run = selectors.audit_run_get(run_id=run_id)
        if run is None:
            raise NotFound("No such audit run.")
        outcomes = selectors.audit_outcomes(run=run)
        data = MemoryAuditRunSerializer(run).data
        data["outcomes"] = MemoryAuditOutcomeRowSerializer(outcomes.rows, many=True).data
        data["overall"] = MemoryAuditOutcomeRowSerializer(
            {"character": "overall", **outcomes.total}
        ).data
        data["flags_per_criterion"] = MemoryAuditCriterionRowSerializer(
            outcomes.criteria_rows, many=True
        ).data
        return Response(data)


class CaseQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="Flagged memories at one status", responses=MemoryAuditCaseSerializer(many=True)
    )
    def get(self, request):
        status = request.query_params.get("status") or selectors.default_queue_status(
            user=request.user
        )
        if status not in MemoryCase.Status.values:
            raise NotFound(f"Unknown status {status!r}.")
        return Response(
            MemoryAuditCaseSerializer(selectors.case_queue(status=status)[:500], many=True).data
        )
