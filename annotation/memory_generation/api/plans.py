"""Memory quota allocation over REST, admin only (/api/memory-generation/): weight
versions, plans and top-ups. Thin: parse → service or selector → serialize; a refusal
is a 400 whose ``detail`` lists what is wrong."""

from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.memory_generation import actions, quota
from annotation.memory_generation.models import PLAN_NOTE_MAX, MemoryPlan
from annotation.memory_generation.selectors import plans as selectors
from annotation.memory_generation.services.plans import (
    PlanError,
    weights_current,
)
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules


class AdminApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)


def _refused(error: PlanError) -> ValidationError:
    return ValidationError({"detail": error.messages})


class QuotaWeightsSerializer(SerializerTextRules, serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    number = serializers.IntegerField(read_only=True)
    weights = serializers.ListField(
        child=serializers.FloatField(),
        help_text=f"{quota.SEGMENT_COUNT} weights ≥ 0, one per age from "
        f"{quota.SEGMENT_AGES[0]} to {quota.SEGMENT_AGES[-1]}.",
    )
    note = serializers.CharField(
        max_length=PLAN_NOTE_MAX, required=False, allow_blank=True, default=""
    )
    created_by = serializers.CharField(
        source="created_by.get_username", read_only=True, default=None
    )
    created_at = serializers.DateTimeField(read_only=True)


class BinSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    first_age = serializers.IntegerField()
    last_age = serializers.IntegerField()
    existing = serializers.IntegerField()
    quota = serializers.IntegerField()


class MemoryPlanSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="character.key")
    profile_version = serializers.IntegerField(source="profile_version.number")
    kind = serializers.CharField(help_text=", ".join(MemoryPlan.Kind.values))
    previous = serializers.IntegerField(source="previous_id", allow_null=True)
    weights_version = serializers.IntegerField(source="weights.number")
    target = serializers.IntegerField()
    accepted = serializers.IntegerField(help_text="k: accepted memories when planned.")
    deficit = serializers.IntegerField(help_text="Memories to generate: the quotas' sum.")
    audit_run = serializers.IntegerField(source="audit_run_id", allow_null=True)
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.get_username", default=None)
    created_at = serializers.DateTimeField()


class MemoryPlanDetailSerializer(MemoryPlanSerializer):
    existing = serializers.ListField(
        child=serializers.IntegerField(), help_text="Accepted per segment, ages 6–50."
    )
    quotas = serializers.ListField(
        child=serializers.IntegerField(), help_text="To generate per segment, ages 6–50."
    )
    bins = BinSerializer(many=True, help_text="The plan per life-stage bin.")


class MemoryPlanCreateSerializer(SerializerTextRules, serializers.Serializer):
    characters = serializers.ListField(child=serializers.CharField(), allow_empty=False)
    weights_id = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="Omit for the latest version."
    )
    target = serializers.IntegerField(min_value=1, default=quota.TARGET_PER_CHARACTER)
    note = serializers.CharField(
        max_length=PLAN_NOTE_MAX, required=False, allow_blank=True, default=""
    )


class TopUpSerializer(SerializerTextRules, serializers.Serializer):
    note = serializers.CharField(
        max_length=PLAN_NOTE_MAX, required=False, allow_blank=True, default=""
    )


@extend_schema_view(
    get=extend_schema(
        summary="Quota weight versions, newest first",
        responses=QuotaWeightsSerializer(many=True),
    ),
    post=extend_schema(
        summary="Save the next quota weight version",
        request=QuotaWeightsSerializer,
        responses={201: QuotaWeightsSerializer},
    ),
)
class QuotaWeightsListApi(AdminApi):
    def get(self, request):
        weights_current()
        return Response(QuotaWeightsSerializer(selectors.weights_versions(), many=True).data)

    def post(self, request):
        params = QuotaWeightsSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        try:
            version = actions.weights_save(user=request.user, **params.validated_data)
        except actions.ActionRefused as refused:
            raise _refused(refused.cause) from refused
        return Response(QuotaWeightsSerializer(version).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(
        summary="Memory plans, newest first", responses=MemoryPlanSerializer(many=True)
    ),
    post=extend_schema(
        summary="Plan the memories of one or more characters",
        description=(
            "One initial plan per character: its deficit (target − accepted memories) spread "
            "over the 45 one-year segments by the weights, summing to the deficit exactly. "
            "Each character's latest profile version must be frozen and it must have fewer "
            "accepted memories than the target; otherwise nothing is created and `detail` "
            "names each refused character."
        ),
        request=MemoryPlanCreateSerializer,
        responses={201: MemoryPlanDetailSerializer(many=True)},
    ),
)
class MemoryPlanListApi(AdminApi):
    def get(self, request):
        return Response(MemoryPlanSerializer(selectors.plan_list(), many=True).data)

    def post(self, request):
        params = MemoryPlanCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            plans = actions.plans_create(
                user=request.user,
                character_keys=data["characters"],
                weights_id=data["weights_id"],
                target=data["target"],
                note=data["note"],
            )
        except actions.ActionRefused as refused:
            raise _refused(refused.cause) from refused
        plans = selectors.plan_list(ids=[p.pk for p in plans], limit=len(plans))
        return Response(
            MemoryPlanDetailSerializer(plans, many=True).data, status=status.HTTP_201_CREATED
        )


@extend_schema_view(
    get=extend_schema(
        summary="One memory plan per segment and per life-stage bin",
        responses=MemoryPlanDetailSerializer,
    )
)
class MemoryPlanDetailApi(AdminApi):
    def get(self, request, plan_id):
        plan = selectors.plan_get(plan_id=plan_id)
        if plan is None:
            raise NotFound(f"There is no memory plan {plan_id}.")
        return Response(MemoryPlanDetailSerializer(plan).data)


@extend_schema_view(
    post=extend_schema(
        summary="Top a plan up after the memory audit",
        description=(
            "After a finalized audit dropped generated memories: a new plan spreading the "
            "deficit (target minus the memories the audit kept) over the segments by the "
            "plan's weights (App. B.4). Refused (400) when nothing is "
            "missing, when no audit was finalized since the plan, or when a later plan exists."
        ),
        request=TopUpSerializer,
        responses={201: MemoryPlanDetailSerializer},
    )
)
class MemoryPlanTopUpApi(AdminApi):
    def post(self, request, plan_id):
        if selectors.plan_get(plan_id=plan_id) is None:
            raise NotFound(f"There is no memory plan {plan_id}.")
        params = TopUpSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        try:
            plan = actions.plan_top_up(user=request.user, plan_id=plan_id, **params.validated_data)
        except actions.ActionRefused as refused:
            raise _refused(refused.cause) from refused
        plan = selectors.plan_get(plan_id=plan.pk)
        return Response(MemoryPlanDetailSerializer(plan).data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("weights/", QuotaWeightsListApi.as_view(), name="weights-list"),
    path("plans/", MemoryPlanListApi.as_view(), name="plan-list"),
    path("plans/<int:plan_id>/", MemoryPlanDetailApi.as_view(), name="plan-detail"),
    path("plans/<int:plan_id>/top-up/", MemoryPlanTopUpApi.as_view(), name="plan-top-up"),
]
