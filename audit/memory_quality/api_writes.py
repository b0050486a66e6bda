"""The memory quality audit's actions over REST (/api/audit/), as its pages offer them
(seed 000 App. B.6): one case as its page shows it, a memory reviewer's decision, the
senior expert's edit (with a diff preview), and the admin's finalize, classifier run and
settings versions. The pages' forms validate and the pages' services act, with the
pages' messages. A case carries an ``ETag``; its writes honour ``If-Match``."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.memory_quality import actions, selectors
from audit.memory_quality.actions import ActionRefused
from audit.memory_quality.api import (
    CONFLICT,
    ERROR,
    MemoryAuditFlagSerializer,
    MemoryAuditRunDetailSerializer,
    answer,
    conflict,
    data_etag,
    error_response,
    request_body,
    run_detail_data,
)
from audit.memory_quality.forms import AuditSettingsForm, ReviewDecisionForm, SeniorEditForm
from audit.memory_quality.models import NOTE_MAX_CHARS, MemoryCase
from audit.memory_quality.services import configuration
from core.actions import validated
from core.api import (
    IF_MATCH,
    domain_error_response,
    form_error_response,
    require_fresh,
    serializer_error_response,
)
from core.roles import HasRole, Role
from core.text_rules import NOTE, TEXT, SerializerTextRules

# --- Serializers --------------------------------------------------------------------------


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


class AgeWindowSerializer(SerializerTextRules, serializers.Serializer):
    key = serializers.CharField(max_length=40)
    first_age = serializers.IntegerField()
    last_age = serializers.IntegerField()


class SettingsInputSerializer(SerializerTextRules, serializers.Serializer):
    # A refused note is named in the page's words (issue #33).
    text_labels = {"note": AuditSettingsForm.base_fields["note"].label}
    note = serializers.CharField(max_length=NOTE_MAX_CHARS)
    omniscient_patterns = serializers.ListField(child=serializers.CharField(), required=False)
    adult_evaluation_patterns = serializers.ListField(child=serializers.CharField(), required=False)
    adult_evaluation_max_age = serializers.IntegerField(required=False)
    context_words_min = serializers.IntegerField(required=False)
    context_words_max = serializers.IntegerField(required=False)
    summary_words_min = serializers.IntegerField(required=False)
    summary_words_max = serializers.IntegerField(required=False)
    duplicate_threshold = serializers.FloatField(required=False)
    age_windows = serializers.ListField(child=AgeWindowSerializer(), required=False)
    length_max_chars = serializers.IntegerField(required=False)
    guided_min_chars = serializers.IntegerField(required=False)
    guided_max_chars = serializers.IntegerField(required=False)
    psychoanalytic_terms = serializers.ListField(child=serializers.CharField(), required=False)
    low_intensity_threshold = serializers.FloatField(required=False)
    max_repair_attempts = serializers.IntegerField(required=False)
    enabled_criteria = serializers.ListField(child=serializers.IntegerField(), required=False)
    narrator_labels = serializers.DictField(child=serializers.CharField(), required=False)


class EditResultSerializer(serializers.Serializer):
    accepted = serializers.BooleanField()
    findings = serializers.ListField(child=serializers.DictField())
    case = CaseDetailSerializer()


class ClassifyInputSerializer(serializers.Serializer):
    criterion = serializers.IntegerField(min_value=1, max_value=6)


class SettingsVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    created_at = serializers.DateTimeField()
    values = serializers.SerializerMethodField()

    def get_values(self, version) -> dict:
        return {name: getattr(version, name) for name in configuration.audit_settings_defaults()}


# --- One case -----------------------------------------------------------------------------


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
        examples=[
            OpenApiExample(
                "A false positive",
                value={
                    "decision": "false_positive",
                    "reason": "Within the guided range for this age.",
                },
                request_only=True,
            )
        ],
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
            return _refused(refused)
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
        examples=[
            OpenApiExample(
                "An edit",
                value={
                    "context": "A rainy afternoon in the school library.",
                    "content_summary": "I waited alone after school and worried.",
                    "content_full": "The rain drummed on the windows ...",
                    "note": "Removed the adult hindsight.",
                },
                request_only=True,
            )
        ],
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
            return _refused(refused)
        data = {
            "accepted": not findings,
            "findings": [_finding(f) for f in findings],
            "case": _case_data(case_id),
        }
        return Response(data, status=status.HTTP_201_CREATED)


def _refused(refused: ActionRefused) -> Response:
    """The page's refusal in the API's words: the form's errors, or the service's."""
    if refused.cause is None:
        return form_error_response(refused.form)
    return error_response(refused.cause)


def _finding(finding) -> dict:
    if isinstance(finding, dict):
        return finding
    return {
        name: getattr(finding, name)
        for name in ("criterion", "field", "detail")
        if hasattr(finding, name)
    }


# --- Runs and settings (admin) ------------------------------------------------------------


class AdminApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)


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
            return _refused(refused)
        code = status.HTTP_200_OK if done else status.HTTP_201_CREATED
        return Response(run_detail_data(_run(run.pk)), status=code)


class RunClassifyApi(AdminApi):
    @extend_schema(
        summary="Queue the LLM classifier over a finished run on one criterion",
        description="Needs a configured classifier model. Answers how many calls were queued.",
        request=ClassifyInputSerializer,
        responses={202: ClassifyInputSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
        examples=[OpenApiExample("Criterion 6", value={"criterion": 6}, request_only=True)],
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


class SettingsApi(AdminApi):
    @extend_schema(
        operation_id="audit_settings_list",
        summary="The audit settings' versions, newest first",
        description="Each run names the version it used; versions never change.",
        responses=SettingsVersionSerializer(many=True),
    )
    def get(self, request):
        versions = selectors.audit_settings_versions()
        return Response(SettingsVersionSerializer(versions, many=True).data)

    @extend_schema(
        summary="Save a new settings version",
        description=(
            "Send the settings you change (lists as JSON lists, `age_windows` as "
            "`[{key, first_age, last_age}]`, `narrator_labels` as an object) and a `note`; "
            "the rest keep the latest version's values. Validated as the settings page."
        ),
        request=SettingsInputSerializer,
        responses={201: SettingsVersionSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Raise the repair attempts",
                value={"max_repair_attempts": 4, "note": "One more attempt per defect."},
                request_only=True,
            )
        ],
    )
    def post(self, request):
        body = request_body(request)
        # The shapes first (lists of strings, windows as objects...), so a body of the wrong
        # shape is a 400 naming the field, never a crash while filling the page's form.
        shaped = SettingsInputSerializer(data=body)
        if not shaped.is_valid():
            return serializer_error_response(shaped)
        latest = selectors.audit_settings_latest()
        values = configuration.audit_settings_defaults()
        if latest is not None:
            values = {name: getattr(latest, name) for name in values}
        sent = {k: v for k, v in shaped.validated_data.items() if k in values}
        data = AuditSettingsForm.initial_from({**values, **sent})
        data["note"] = body.get("note", "")
        if "enabled_criteria" not in sent:
            data["enabled_criteria"] = values["enabled_criteria"]
        try:
            version = actions.settings_create(
                AuditSettingsForm(data=data),
                user=request.user,
                character_names=values["character_names"],
            )
        except ActionRefused as refused:
            return _refused(refused)
        return Response(SettingsVersionSerializer(version).data, status=status.HTTP_201_CREATED)
