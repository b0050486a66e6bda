"""Profile review outcomes over REST (/api/review/profile-outcomes/), for arbitrators and
admins.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.profile_review import selectors
from core.roles import HasRole, Role

from . import examples


class OutcomeRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    count = serializers.IntegerField()
    percent = serializers.FloatField(allow_null=True)
    characters = serializers.ListField(child=serializers.CharField())


class OutcomeTableSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    rows = OutcomeRowSerializer(many=True)


class ProfileOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="Initial profile review outcomes, per profile and overall",
        description="Each profile by its reviewers' initial recommendations.",
        responses=OutcomeTableSerializer,
        examples=examples.PROFILE_OUTCOMES_GET,
    )
    def get(self, request):
        return Response(OutcomeTableSerializer(selectors.profile_outcome_table()).data)
