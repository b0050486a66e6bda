"""The memory quality audit over REST (/api/audit/): runs (start, progress, outcomes),
the flagged-memory queue and one case as its page shows it. The writes of the pages
(decisions, senior edits, finalize, classify, settings) are in ``api_writes``. Thin:
the pages' forms validate, the pages' services act, with the pages' messages."""

import json

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality import selectors
from audit.memory_quality.forms import AuditRunForm
from audit.memory_quality.models import NOTE_MAX_CHARS, AuditError, AuditRun, MemoryCase
from audit.memory_quality.services import runs
from core.api import (
    ListFilter,
    etag,
    form_error_response,
    list_parameters,
    list_response,
    paginated_schema,
    with_etag,
)
from core.roles import HasRole, Role
from core.tasks import enqueue_on_commit
from core.text_rules import SerializerTextRules

ERROR = inline_serializer(
    "AuditErrorResponse",
    {
        "detail": serializers.ListField(child=serializers.CharField()),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)
CONFLICT = inline_serializer("AuditConflictResponse", {"detail": serializers.CharField()})


def error_response(error: AuditError) -> Response:
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def conflict(text: str) -> Response:
    return Response({"detail": text}, status=status.HTTP_409_CONFLICT)


def request_body(request) -> dict:
    if not hasattr(request.data, "get"):
        raise ParseError("Send a JSON object.")
    return request.data


def data_etag(data) -> str:
    return etag(json.dumps(data, sort_keys=True, default=str))


def answer(data, *, code=status.HTTP_200_OK) -> Response:
    return with_etag(Response(data, status=code), data_etag(data))


class MemoryAuditRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text=", ".join(AuditRun.Status.values))
    settings_version = serializers.IntegerField(source="settings_version.number")
    note = serializers.CharField()
    character_keys = serializers.ListField(child=serializers.CharField())
    memory_total = serializers.IntegerField()
    memory_done = serializers.IntegerField()
    percent = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    finalized_at = serializers.DateTimeField(allow_null=True)


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


class AuditRunInputSerializer(SerializerTextRules, serializers.Serializer):
    characters = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Empty: every character."
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE_MAX_CHARS)


RUN_FILTERS = [ListFilter("status", "status", choices=tuple(AuditRun.Status.values))]
RUN_ORDERINGS = ("created_at", "finished_at", "status")
RUN_EXAMPLE = {
    "id": 3,
    "status": "finished",
    "settings_version": 1,
    "note": "",
    "character_keys": [],
    "memory_total": 40,
    "memory_done": 40,
    "percent": 100,
    "created_at": "2026-01-01T10:00:00Z",
    "finished_at": "2026-01-01T10:02:00Z",
    "finalized_at": None,
}


class AuditRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        operation_id="audit_runs_list",
        summary="Memory audit runs",
        description="Newest first unless ordered otherwise.",
        parameters=list_parameters(RUN_FILTERS, RUN_ORDERINGS),
        responses=paginated_schema(MemoryAuditRunSerializer),
        examples=[
            OpenApiExample(
                "A page of runs",
                response_only=True,
                value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
            )
        ],
    )
    def get(self, request):
        return list_response(
            request,
            self,
            selectors.audit_run_list(),
            MemoryAuditRunSerializer,
            filters=RUN_FILTERS,
            orderings=RUN_ORDERINGS,
        )

    @extend_schema(
        summary="Start an audit run (criteria 1-6 over the memories)",
        description=(
            "As the runs page's form: the characters to audit (none: every character) and "
            "a note. The run is executed by a Celery worker; poll its detail. Only one run "
            "at a time."
        ),
        request=AuditRunInputSerializer,
        responses={202: MemoryAuditRunSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Start a run", value={"characters": ["CHAR_01"], "note": ""}, request_only=True
            )
        ],
    )
    def post(self, request):
        body = request_body(request)
        keys = selectors.character_keys()
        form = AuditRunForm(data=body, character_keys=keys)
        if not form.is_valid():
            return form_error_response(form)
        try:
            run = runs.audit_run_start(
                created_by=request.user,
                character_keys=form.cleaned_data["characters"],
                note=form.cleaned_data["note"],
            )
        except AuditError as error:
            return error_response(error)
        enqueue_on_commit("audit.run_memory_audit", run.pk, what=f"Audit run {run.pk}")
        return Response(MemoryAuditRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class AuditRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One memory audit run: progress and outcomes",
        description="Outcomes per character and overall, and the flags per criterion.",
        responses={200: MemoryAuditRunDetailSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, run_id: int):
        run = selectors.audit_run_get(run_id=run_id)
        if run is None:
            raise NotFound("No such audit run.")
        return Response(run_detail_data(run))


def run_detail_data(run) -> dict:
    outcomes = selectors.audit_outcomes(run=run)
    data = MemoryAuditRunSerializer(run).data
    data["outcomes"] = MemoryAuditOutcomeRowSerializer(outcomes.rows, many=True).data
    data["overall"] = MemoryAuditOutcomeRowSerializer(
        {"character": "overall", **outcomes.total}
    ).data
    data["flags_per_criterion"] = MemoryAuditCriterionRowSerializer(
        outcomes.criteria_rows, many=True
    ).data
    return data


CASE_FILTERS = [
    ListFilter(
        "status",
        "status",
        description="The cases at this status (default: what awaits your role).",
        choices=tuple(MemoryCase.Status.values),
    ),
    ListFilter("character", "character__key", description="One character key."),
    ListFilter("run", "run_id", int, description="One audit run."),
]
CASE_ORDERINGS = {
    "character": "character__key",
    "memory_id": "memory__memory_id",
    "event_age": "memory__event_age",
    "updated_at": "updated_at",
}


class CaseQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        operation_id="audit_cases_list",
        summary="Flagged memories at one status",
        description=(
            "Without `status`, the queue of your role: memory reviewers `review`, the "
            "senior expert `senior`."
        ),
        parameters=list_parameters(CASE_FILTERS, CASE_ORDERINGS),
        responses=paginated_schema(MemoryAuditCaseSerializer),
        examples=[
            OpenApiExample(
                "A page of cases",
                response_only=True,
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": 12,
                            "memory_id": "CHAR_01_M004",
                            "character": "CHAR_01",
                            "status": "review",
                            "run": 3,
                            "repair_attempts": 3,
                            "current_flags": [
                                {"criterion": 5, "field": "content_full", "detail": "Too long."}
                            ],
                        }
                    ],
                },
            )
        ],
    )
    def get(self, request):
        wanted = request.query_params.get("status") or selectors.default_queue_status(
            user=request.user
        )
        if wanted not in MemoryCase.Status.values:
            raise ParseError({"status": [f"Choose one of: {', '.join(MemoryCase.Status.values)}."]})
        filters = [f for f in CASE_FILTERS if f.name != "status"]
        return list_response(
            request,
            self,
            selectors.case_queue(status=wanted),
            MemoryAuditCaseSerializer,
            filters=filters,
            orderings=CASE_ORDERINGS,
        )
