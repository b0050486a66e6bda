"""Flagged-memory cases over REST (/api/audit/cases/), as their pages offer them (seed 000
App. B.6): the queue, one case as its page shows it, a memory reviewer's decision and the
senior expert's edit (with a diff preview). A case carries an ``ETag``; its writes
honour ``If-Match``.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality import actions, selectors
from audit.memory_quality.actions import ActionRefused
from audit.memory_quality.forms import ReviewDecisionForm, SeniorEditForm
from audit.memory_quality.models import MemoryCase
from audit.memory_quality.services import configuration
from core.actions import validated
from core.api import (
    IF_MATCH,
    ListFilter,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
)
from core.roles import HasRole, Role
from core.text_rules import NOTE, TEXT, SerializerTextRules

from . import examples
from .common import CONFLICT, ERROR, answer, conflict, data_etag, refused_response, request_body


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


class CaseFieldSerializer(serializers.Serializer):
    name = serializers.CharField()
    text = serializers.CharField()
    flagged = serializers.BooleanField()


class AgreementSerializer(serializers.Serializer):
    reviewer = serializers.CharField(source="reviewer.username")
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class MemoryVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    origin = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()


class CaseDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="case.pk")
    memory_id = serializers.CharField(source="memory.memory_id")
    character = serializers.CharField(source="case.character.key")
    run = serializers.IntegerField(source="case.run_id")
    status = serializers.CharField(source="case.status")
    decision = serializers.CharField(source="case.decision")
    decision_reason = serializers.CharField(source="case.decision_reason")
    decided_by = serializers.CharField(source="case.reviewer.username", allow_null=True)
    fields = CaseFieldSerializer(many=True)
    current_flags = MemoryAuditFlagSerializer(many=True)
    repair_attempts = serializers.SerializerMethodField()
    agreements = AgreementSerializer(many=True)
    team_size = serializers.IntegerField()
    agreements_needed = serializers.IntegerField()
    versions = MemoryVersionSerializer(many=True)
    last_edit_diff = serializers.SerializerMethodField()

    def get_repair_attempts(self, page) -> int:
        return len(page.attempts)

    def get_last_edit_diff(self, page) -> list[dict]:
        return page.last_edit_diff


class DecisionInputSerializer(SerializerTextRules, serializers.Serializer):
    decision = serializers.ChoiceField(choices=MemoryCase.Decision.choices)
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=NOTE,
        help_text="Required for a false positive.",
    )


class MemoryEditInputSerializer(SerializerTextRules, serializers.Serializer):
    context = serializers.CharField(max_length=TEXT)
    content_summary = serializers.CharField(max_length=TEXT)
    content_full = serializers.CharField(max_length=TEXT)
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE)
    preview = serializers.BooleanField(
        required=False, help_text="Only answer the diff against the memory; save nothing."
    )


class DiffRowSerializer(serializers.Serializer):
    field = serializers.CharField()
    label = serializers.CharField()
    ops = serializers.ListField(child=serializers.JSONField())


class EditResultSerializer(serializers.Serializer):
    accepted = serializers.BooleanField()
    findings = serializers.ListField(child=serializers.DictField())
    case = CaseDetailSerializer()


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
        examples=examples.CASE_QUEUE_GET,
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
            # Paged in the database; only the page's cases get flags and attempts.
            serialize=lambda page: (
                MemoryAuditCaseSerializer(selectors.queue_rows(page), many=True).data
            ),
        )


def _case_page(case_id):
    page = selectors.case_page(case_id=case_id, team_size=configuration.override_team_size())
    if page is None:
        raise NotFound("No such audit case.")
    return page


def _case_data(case_id) -> dict:
    return CaseDetailSerializer(_case_page(case_id)).data


class CaseDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.MEMORY_REVIEWER, Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="One flagged memory, as its page shows it",
        description=(
            "The memory's fields, the current flags, the repair attempts, the override "
            "agreements and the versions. The `ETag` names this state: send it in "
            "`If-Match` with a decision or an edit."
        ),
        responses={200: CaseDetailSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, case_id):
        return answer(_case_data(case_id))


class CaseDecideApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.MEMORY_REVIEWER,)

    @extend_schema(
        summary="Record your decision on a flagged memory",
        description=(
            "`confirmed` sends the memory to the senior expert; `false_positive` (with a "
            "reason) records your agreement, and the override takes effect once the "
            "team's number of reviewers agreed. The same decision again answers 200; "
            "another decision on a decided memory answers 409."
        ),
        parameters=[IF_MATCH],
        request=DecisionInputSerializer,
        responses={
            200: CaseDetailSerializer,
            201: CaseDetailSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.CASE_DECIDE_POST,
    )
    def post(self, request, case_id):
        page = _case_page(case_id)
        require_fresh(request, data_etag(CaseDetailSerializer(page).data))
        form = ReviewDecisionForm(data=request_body(request), case_id=case_id)
        validated(form)
        decision = form.cleaned_data["decision"]
        reason = form.cleaned_data["reason"].strip()
        mine = next((a for a in page.agreements if a.reviewer_id == request.user.pk), None)
        case = page.case
        if decision == MemoryCase.Decision.FALSE_POSITIVE and mine is not None:
            if mine.reason == reason:
                return answer(_case_data(case_id))
            return conflict("You have already agreed that this flag is a false positive.")
        if case.status != MemoryCase.Status.REVIEW and case.decision:
            if case.reviewer_id == request.user.pk and case.decision == decision:
                return answer(_case_data(case_id))
            return conflict(
                f"This memory is at “{case.get_status_display()}”, not awaiting review."
            )
        try:
            actions.case_decide(form, user=request.user, case_id=case_id)
        except ActionRefused as refused:
            return refused_response(refused)
        return answer(_case_data(case_id), code=status.HTTP_201_CREATED)


class CaseEditApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR,)

    @extend_schema(
        summary="The senior expert's edit of a confirmed defect, re-audited at once",
        description=(
            "With `preview: true`, answers the field-level diff and saves nothing. "
            "Otherwise the edit is saved as a new memory version and re-audited; "
            "`accepted` is true (and the case closes) when the re-audit flags nothing, "
            "else `findings` lists what it still flags: edit again."
        ),
        parameters=[IF_MATCH],
        request=MemoryEditInputSerializer,
        responses={
            200: DiffRowSerializer(many=True),
            201: EditResultSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples.CASE_EDIT_POST,
    )
    def post(self, request, case_id):
        page = _case_page(case_id)
        require_fresh(request, data_etag(CaseDetailSerializer(page).data))
        body = request_body(request)
        form = SeniorEditForm(data=body, case_id=case_id)
        validated(form)
        if str(body.get("preview", "")).lower() in ("true", "1"):
            before = {f.name: f.text for f in page.fields}
            return Response(selectors.version_diff(before, form.cleaned_data))
        try:
            _, findings = actions.case_senior_edit(form, user=request.user, case_id=case_id)
        except ActionRefused as refused:
            return refused_response(refused)
        data = {
            "accepted": not findings,
            "findings": [_finding(f) for f in findings],
            "case": _case_data(case_id),
        }
        return Response(data, status=status.HTTP_201_CREATED)


def _finding(finding) -> dict:
    if isinstance(finding, dict):
        return finding
    return {
        name: getattr(finding, name)
        for name in ("criterion", "field", "detail")
        if hasattr(finding, name)
    }
