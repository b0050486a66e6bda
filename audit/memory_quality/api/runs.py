"""Audit runs over REST (/api/audit/runs/): start one (admins; a worker runs it), their
progress and outcomes, and the admin's finalize and classifier run.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality import actions, selectors
from audit.memory_quality.actions import ActionRefused
from audit.memory_quality.forms import AuditRunForm
from audit.memory_quality.models import NOTE_MAX_CHARS, AuditError, AuditRun
from audit.memory_quality.services import runs
from core.api import (
    ListFilter,
    domain_error_response,
    list_parameters,
    list_response,
    paginated_schema,
)
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules

from . import examples
from .common import ERROR, AdminApi, error_response, refused_response, request_body


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
    budget_usd = serializers.DecimalField(
        max_digits=12, decimal_places=2, allow_null=True, help_text="Null: no budget."
    )
    stop_reason = serializers.CharField(
        help_text="Why a run stopped at its budget or a monthly cap (status stopped_at_budget)."
    )


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


class AuditRunInputSerializer(SerializerTextRules, serializers.Serializer):
    characters = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Empty: every character."
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE_MAX_CHARS)
    budget_usd = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        required=False,
        allow_null=True,
        help_text="USD; the run's repair and classifier calls stop once their cost reaches it.",
    )


class ResumeInputSerializer(serializers.Serializer):
    budget_usd = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        required=False,
        allow_null=True,
        help_text="For a run stopped at a spending limit: its new budget (absent or null: "
        "none; never the old one).",
    )


RUN_FILTERS = [ListFilter("status", "status", choices=tuple(AuditRun.Status.values))]
RUN_ORDERINGS = ("created_at", "finished_at", "status")


class AuditRunListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        operation_id="audit_runs_list",
        summary="Memory audit runs",
        description="Newest first unless ordered otherwise.",
        parameters=list_parameters(RUN_FILTERS, RUN_ORDERINGS),
        responses=paginated_schema(MemoryAuditRunSerializer),
        examples=examples.AUDIT_RUN_LIST_GET,
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
        examples=examples.AUDIT_RUN_LIST_POST,
    )
    def post(self, request):
        form = AuditRunForm(data=request_body(request), character_keys=selectors.character_keys())
        try:
            run = actions.run_start(form, user=request.user)
        except ActionRefused as refused:
            return refused_response(refused)
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


class ClassifyInputSerializer(serializers.Serializer):
    criterion = serializers.IntegerField(min_value=1, max_value=6)


def _run(run_id):
    run = selectors.audit_run_get(run_id=run_id)
    if run is None:
        raise NotFound("No such audit run.")
    return run


class RunFinalizeApi(AdminApi):
    @extend_schema(
        summary="Finalize a finished run: deduplicate, order and sanitize the timelines",
        description=(
            "Every flagged memory must be resolved. Finalizing a finalized run again "
            "answers 200 with it."
        ),
        request=None,
        responses={
            200: MemoryAuditRunDetailSerializer,
            201: MemoryAuditRunDetailSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
        },
    )
    def post(self, request, run_id):
        run = _run(run_id)
        done = run.finalized_at is not None
        try:
            run = actions.run_finalize(user=request.user, run_id=run_id)
        except ActionRefused as refused:
            return refused_response(refused)
        code = status.HTTP_200_OK if done else status.HTTP_201_CREATED
        return Response(run_detail_data(_run(run.pk)), status=code)


class RunClassifyApi(AdminApi):
    @extend_schema(
        summary="Queue the LLM classifier over a finished run on one criterion",
        description="Needs a configured classifier model. Answers how many calls were queued.",
        request=ClassifyInputSerializer,
        responses={202: ClassifyInputSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
        examples=examples.RUN_CLASSIFY_POST,
    )
    def post(self, request, run_id):
        _run(run_id)
        try:
            criterion, queued = actions.run_classify(
                user=request.user, run_id=run_id, criterion=request_body(request).get("criterion")
            )
        except ActionRefused as refused:
            return domain_error_response(refused.cause)  # a missing criterion named as a field
        return Response({"criterion": criterion, "queued": queued}, status=status.HTTP_202_ACCEPTED)


class RunActionApi(AdminApi):
    """POST-only: cancel, resume or retry a run, as the run page's buttons do (the same
    service, the same refusal)."""

    action = staticmethod(lambda *, run_id, user: None)

    def post(self, request, run_id):
        _run(run_id)
        try:
            self.action(run_id=run_id, user=request.user)
        except AuditError as error:
            return error_response(error)
        return Response(run_detail_data(_run(run_id)))


def _run_action(name: str, action, summary: str, description: str):
    view = type(name, (RunActionApi,), {"action": staticmethod(action), "__doc__": description})
    return extend_schema(
        summary=summary,
        description=description,
        request=None,
        responses={200: MemoryAuditRunDetailSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
    )(view)


RunCancelApi = _run_action(
    "RunCancelApi",
    runs.audit_run_cancel,
    "Cancel a pending or running audit run",
    "The characters not yet audited are cancelled at once; the one being audited "
    "finishes first and its results stay. Resume audits the cancelled ones.",
)


@extend_schema(
    summary="Resume a cancelled audit run, or one stopped at a spending limit",
    description=(
        "A cancelled run: its cancelled characters are queued again; those audited already "
        "stay as they are. A run stopped at its budget or a monthly cap: its repairs and "
        "classifier calls waiting are queued again, with budget_usd as its new budget "
        "(absent or null: none; never the old one); refused while the limit still holds."
    ),
    request=ResumeInputSerializer,
    responses={200: MemoryAuditRunDetailSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
)
class RunResumeApi(AdminApi):
    def post(self, request, run_id):
        _run(run_id)
        budget = request_body(request).get("budget_usd")
        try:
            actions.run_resume(run_id=run_id, user=request.user, budget_usd=budget)
        except AuditError as error:
            return error_response(error)
        return Response(run_detail_data(_run(run_id)))


RunRetryApi = _run_action(
    "RunRetryApi",
    runs.audit_run_retry,
    "Retry an audit run's failed characters",
    "A run that finished with failures audits its failed characters again.",
)
