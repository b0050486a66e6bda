"""Scenario blueprints over REST (/api/review/blueprints/): list, create, one, and the
queue of one blueprint's scenarios.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from annotation.profile_review.api.common import (
    ERROR,
    not_found,
    refused_answer,
    request_body,
)
from annotation.scenario_review import actions, selectors
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import BlueprintForm
from annotation.scenario_review.models import (
    BLUEPRINT_TITLE_MAX,
    DIAMONDS_DIMENSION_CHOICES,
    ScenarioBlueprint,
)
from core.api import (
    ListFilter,
    list_parameters,
    list_response,
    paginated_schema,
)
from core.life_stages import LIFE_STAGE_CHOICES
from core.roles import Role
from core.text_rules import NOTE, SerializerTextRules

from . import examples
from .common import ScenarioReadApi


class BlueprintSerializer(SerializerTextRules, serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    title = serializers.CharField(max_length=BLUEPRINT_TITLE_MAX)
    summary = serializers.CharField(max_length=NOTE)
    stage = serializers.ChoiceField(choices=LIFE_STAGE_CHOICES)
    diamonds_dimension = serializers.ChoiceField(choices=DIAMONDS_DIMENSION_CHOICES)
    status = serializers.CharField(read_only=True)
    error = serializers.CharField(read_only=True)
    scenario_id = serializers.CharField(
        source="scenario.scenario_id", read_only=True, allow_null=True
    )


BLUEPRINT_FILTERS = [
    ListFilter("status", "status", choices=tuple(ScenarioBlueprint.Status.values)),
    ListFilter("stage", "stage", description="The life-stage bin."),
]
BLUEPRINT_ORDERINGS = {"created_at": "created_at", "title": "title", "status": "status"}


class BlueprintListApi(ScenarioReadApi):
    @extend_schema(
        operation_id="review_blueprints_list",
        summary="Scenario blueprints",
        description="Newest first unless ordered otherwise.",
        parameters=list_parameters(BLUEPRINT_FILTERS, BLUEPRINT_ORDERINGS),
        responses=paginated_schema(BlueprintSerializer),
        examples=examples.BLUEPRINT_LIST_GET,
    )
    def get(self, request):
        return list_response(
            request,
            self,
            selectors.blueprint_list(),
            BlueprintSerializer,
            filters=BLUEPRINT_FILTERS,
            orderings=BLUEPRINT_ORDERINGS,
        )

    @extend_schema(
        summary="Draft a blueprint; a worker expands it into a draft scenario",
        description="Scenario reviewers only. The expansion runs on a Celery worker.",
        request=BlueprintSerializer,
        responses={202: BlueprintSerializer, 400: ERROR, 403: ERROR},
        examples=examples.BLUEPRINT_LIST_POST,
    )
    def post(self, request):
        form = BlueprintForm(data=request_body(request))
        try:
            blueprint = actions.blueprint_create(form, user=request.user)
        except ActionRefused as refused:
            return refused_answer(refused)
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)


class BlueprintDetailApi(ScenarioReadApi):
    @extend_schema(
        summary="One blueprint and its expansion",
        responses={200: BlueprintSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, id):
        blueprint = not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        return Response(BlueprintSerializer(blueprint).data)


class BlueprintQueueApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)

    @extend_schema(
        summary="Queue a blueprint's expansion again (a failed one is retried)",
        description="As the page's button: a failed expansion is reset, then queued.",
        request=None,
        responses={202: BlueprintSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request, id):
        not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        try:
            actions.blueprint_queue(user=request.user, blueprint_id=id)
        except ActionRefused as refused:
            return refused_answer(refused)
        blueprint = selectors.blueprint_get(blueprint_id=id)
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)
