"""A label audit's outcomes over REST (/api/audit/labels/<id>/outcomes/): Table 14 and
Fleiss' kappa, for the adjudicator and admins.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.reference_labels import stored_reports
from core.api import ERROR
from core.roles import HasRole

from . import examples
from .common import OVERSEERS, overseer_audit


class LabelAuditOutcomeRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    n = serializers.IntegerField()
    percent = serializers.FloatField()


class LabelAuditOutcomesSerializer(serializers.Serializer):
    rows = LabelAuditOutcomeRowSerializer(many=True)
    fleiss_kappa = serializers.FloatField(source="kappa", allow_null=True)
    kappa_ci = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    kappa_items = serializers.IntegerField()
    n_boot = serializers.IntegerField()


class LabelOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = OVERSEERS

    @extend_schema(
        summary="One audit's outcome table and Fleiss' κ",
        description="The outcome counts over the sample and the three experts' κ with its "
        "bootstrap interval, as the outcomes page.",
        responses={200: LabelAuditOutcomesSerializer, 403: ERROR, 404: ERROR},
        examples=examples.LABEL_OUTCOMES_GET,
    )
    def get(self, request, label_audit_id: int):
        audit = overseer_audit(request, label_audit_id)
        result = stored_reports.stored_or_empty(audit)
        data = LabelAuditOutcomesSerializer(result).data
        data["kappa_ci"] = list(result.kappa_ci) if result.kappa_ci else None
        return Response(data)
