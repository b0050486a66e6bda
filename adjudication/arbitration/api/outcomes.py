"""Comparison and arbitration outcomes over REST (/api/arbitration/outcomes/), for
arbitrators and admins; the families' rows only where the page names families.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.arbitration import selectors
from adjudication.arbitration.models import AdjudicationSettings
from core.roles import HasRole, Role, user_roles


class OutcomesSerializer(serializers.Serializer):
    statistics = serializers.DictField(child=serializers.FloatField(allow_null=True))


class ComparisonOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ARBITRATOR, Role.ADMIN]

    @extend_schema(summary="Comparison and arbitration outcomes", responses=OutcomesSerializer)
    def get(self, request):
        families = (
            Role.ADMIN in user_roles(request.user)
            or AdjudicationSettings.current().show_family_to_arbitrator
        )
        rows = {
            name: value
            for name, value in selectors.comparison_outcomes().csv_rows()
            if families or not name.startswith("references_from_")
        }
        return Response({"statistics": rows})
