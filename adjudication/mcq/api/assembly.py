"""MCQ assembly runs over REST (/api/items/assembly/), for admins: start one with the
page's fields, list them, and poll one while the worker runs.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import actions
from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.forms import AssemblyRunForm
from adjudication.mcq.models import McqAssemblyRun
from core.api import (
    ERROR,
    ListFilter,
    list_parameters,
    list_response,
    paginated_schema,
    serializer_error_response,
)
from core.roles import HasRole, Role
from core.text_rules import NAME, NOTE, SerializerTextRules

from . import examples


class AssemblyRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    params = serializers.JSONField()
    seed = serializers.IntegerField()
    gate_override_reason = serializers.CharField()
    total = serializers.IntegerField()
    processed = serializers.IntegerField()
    assembled = serializers.IntegerField()
    needs_completion = serializers.IntegerField()
    percent = serializers.IntegerField()
    error = serializers.CharField()
    started_by = serializers.CharField(source="started_by.username", default=None)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class AssemblyRunDetailSerializer(AssemblyRunSerializer):
    keys = serializers.SerializerMethodField(help_text="Placed keys per option label.")

    def get_keys(self, run) -> dict:
        return mcq_selectors.run_key_distribution(run_id=run.pk)


RUN_FILTERS = [
    ListFilter("status", "status", choices=tuple(McqAssemblyRun.Status.values)),
]
RUN_ORDERINGS = ("created_at", "status")


def assembly_runs_queryset():
    return McqAssemblyRun.objects.select_related("started_by").order_by("-created_at", "-pk")


class AssemblyRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One assembly run and its progress",
        description="Poll it while the worker runs (status queued → running → done).",
        responses={200: AssemblyRunDetailSerializer, 403: ERROR, 404: ERROR},
        examples=examples.ASSEMBLY_RUN_DETAIL_GET,
    )
    def get(self, request, run_id: int):
        run = mcq_selectors.assembly_run_get(run_id=run_id)
        if run is None:
            raise NotFound("No such assembly run.")
        return Response(AssemblyRunDetailSerializer(run).data)


class AssemblyRunRequestSerializer(SerializerTextRules, serializers.Serializer):
    measure = serializers.CharField(
        required=False, max_length=NAME, help_text="A registered similarity measure."
    )
    similarity_max = serializers.FloatField(required=False)
    relevance_min = serializers.FloatField(required=False)
    include_unadjudicated = serializers.BooleanField(required=False)
    gate_override_reason = serializers.CharField(required=False, max_length=NOTE)


class AssemblyRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        operation_id="items_assembly_list",
        summary="Assembly runs, newest first",
        description="Every run with its parameters and progress.",
        parameters=list_parameters(RUN_FILTERS, RUN_ORDERINGS),
        responses={200: paginated_schema(AssemblyRunSerializer), 400: ERROR, 403: ERROR},
        examples=examples.ASSEMBLY_RUN_LIST_GET,
    )
    def get(self, request):
        return list_response(
            request,
            self,
            assembly_runs_queryset(),
            AssemblyRunSerializer,
            filters=RUN_FILTERS,
            orderings=RUN_ORDERINGS,
        )

    @extend_schema(
        summary="Start an assembly run",
        description="The assembly page's form: a Celery worker assembles every pair with an "
        "adjudicated reference and no item, then each item is screened. Fields default to "
        "the page's; include_unadjudicated (a protocol deviation) needs "
        "gate_override_reason. 201 with the run (poll /api/items/assembly/{id}/); 400 with "
        "the page's message when another run is queued or running.",
        request=AssemblyRunRequestSerializer,
        responses={201: AssemblyRunSerializer, 400: ERROR, 403: ERROR},
        examples=examples.ASSEMBLY_RUN_LIST_POST,
    )
    def post(self, request):
        incoming = AssemblyRunRequestSerializer(data=request.data)
        if not incoming.is_valid():
            # Shape first (a list body, a nested object, a word for a number): 400, not 500.
            return serializer_error_response(incoming)
        initial = {name: field.initial for name, field in AssemblyRunForm().fields.items()}
        data = {k: v for k, v in initial.items() if v is not None}
        data |= {k: v for k, v in incoming.validated_data.items() if v is not None}
        if data.get("include_unadjudicated") in (False, "false", "False", "0", ""):
            data.pop("include_unadjudicated")
        run = actions.assembly_run_start(AssemblyRunForm(data=data), user=request.user)
        return Response(AssemblyRunSerializer(run).data, status=status.HTTP_201_CREATED)
