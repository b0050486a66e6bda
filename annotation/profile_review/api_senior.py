"""Profile review over REST (/api/review/): the senior expert's side (seed 000 App. B.3):
the adjudication view, resolving change requests, field-level edits that make the next
version, and the freeze. Thin: the pages' forms validate, the pages' services act, with
the pages' messages. The adjudication record carries an ``ETag``; every write honours
``If-Match``."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.models import CORE_PATTERN_COUNT
from annotation.profile_review import selectors, services
from annotation.profile_review.api import (
    CONFLICT,
    ERROR,
    AdjudicatedReviewSerializer,
    ProfileFieldSerializer,
    answer,
    conflict,
    data_etag,
    error_response,
    not_found,
    request_body,
)
from annotation.profile_review.forms import (
    ChangeRequestResolveForm,
    FreezeForm,
    ProfileEditForm,
)
from annotation.profile_review.models import (
    ChangeRequest,
    ProfileReviewCase,
    ReviewError,
)
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.api import IF_MATCH, form_error_response, require_fresh
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules

# --- Serializers --------------------------------------------------------------------------


class ProfileEditSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="case.character.key")
    from_version = serializers.IntegerField(source="from_version.number")
    to_version = serializers.IntegerField(source="to_version.number")
    editor = serializers.CharField(source="editor.username")
    note = serializers.CharField()
    anchor_change_confirmed = serializers.BooleanField()
    changed_fields = serializers.SerializerMethodField()
    diff = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_changed_fields(self, edit) -> list[str]:
        return [c["field"] for c in edit.diff]

    def get_diff(self, edit) -> list[dict]:
        return [
            {"field": c["field"], "label": c["label"], "before": c["before"], "after": c["after"]}
            for c in edit.diff
        ]


class AdjudicationSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    case_status = serializers.CharField(source="case.status", allow_null=True)
    reviewed_version = serializers.IntegerField(source="reviewed.number", allow_null=True)
    latest_version = serializers.IntegerField(source="latest.number", allow_null=True)
    latest_frozen = serializers.SerializerMethodField()
    latest_fields = serializers.SerializerMethodField()
    submitted = serializers.IntegerField()
    required = serializers.IntegerField()
    open_requests = serializers.IntegerField()
    can_adjudicate = serializers.BooleanField()
    can_freeze = serializers.BooleanField()
    reviews = AdjudicatedReviewSerializer(many=True)
    edits = ProfileEditSerializer(many=True)

    def get_latest_frozen(self, page) -> bool:
        return bool(page.latest and page.latest.is_frozen)

    def get_latest_fields(self, page) -> list[dict]:
        if page.latest is None:
            return []
        return ProfileFieldSerializer(selectors.profile_fields(page.latest), many=True).data


class ResolveInputSerializer(SerializerTextRules, serializers.Serializer):
    status = serializers.ChoiceField(
        choices=[ChangeRequest.Status.ACCEPTED, ChangeRequest.Status.REJECTED]
    )
    reason = serializers.CharField(
        max_length=LIMITS["reason"],
        required=False,
        allow_blank=True,
        help_text="Required to reject.",
    )


class ResolvedRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    field = serializers.CharField()
    status = serializers.CharField()
    resolution_reason = serializers.CharField()
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True)
    resolved_in_version = serializers.IntegerField(
        source="resolved_in_version.number", allow_null=True
    )


class ProfileEditInputSerializer(SerializerTextRules, serializers.Serializer):
    construction_label = serializers.CharField(
        max_length=LIMITS["construction_label"], required=False
    )
    occupation = serializers.CharField(max_length=LIMITS["occupation"], required=False)
    openness = serializers.FloatField(required=False)
    conscientiousness = serializers.FloatField(required=False)
    extraversion = serializers.FloatField(required=False)
    agreeableness = serializers.FloatField(required=False)
    neuroticism = serializers.FloatField(required=False)
    description = serializers.CharField(max_length=LIMITS["description"], required=False)
    self_value_logic = serializers.CharField(max_length=LIMITS["self_value_logic"], required=False)
    core_patterns = serializers.ListField(
        child=serializers.CharField(max_length=LIMITS["core_pattern_1"]),
        required=False,
        help_text=f"All {CORE_PATTERN_COUNT} patterns, in order.",
    )
    confirm_anchor_change = serializers.BooleanField(required=False)
    note = serializers.CharField(max_length=LIMITS["note"], required=False, allow_blank=True)


class FreezeInputSerializer(SerializerTextRules, serializers.Serializer):
    suitability_confirmed = serializers.BooleanField()
    note = serializers.CharField(max_length=LIMITS["note"], required=False, allow_blank=True)


class FrozenVersionSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    version = serializers.IntegerField(source="number")
    frozen_at = serializers.DateTimeField()
    frozen_by = serializers.CharField(source="frozen_by.username")
    suitability_note = serializers.SerializerMethodField()

    def get_suitability_note(self, version) -> str:
        case = ProfileReviewCase.objects.filter(final_version=version).first()
        return case.suitability_note if case else ""


# --- Views --------------------------------------------------------------------------------


class SeniorApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR,)


def _adjudication(key):
    return not_found(lambda: selectors.profile_adjudication_page(character_key=key))


def _adjudication_data(key) -> dict:
    return AdjudicationSerializer(_adjudication(key)).data


class AdjudicationApi(SeniorApi):
    @extend_schema(
        summary="The senior expert's adjudication of a profile",
        description=(
            "Every submitted review side by side with its change requests, the latest "
            "version's fields and the edits so far. The `ETag` names this state: send it "
            "in `If-Match` with a resolve, an edit or the freeze."
        ),
        responses={200: AdjudicationSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, key):
        return answer(_adjudication_data(key))


class ChangeRequestResolveApi(SeniorApi):
    @extend_schema(
        summary="Accept or reject one change request",
        description=(
            "A rejection needs a reason. Resolving it the same way again answers 200 "
            "with the record; resolving it differently once resolved answers 409."
        ),
        parameters=[IF_MATCH],
        request=ResolveInputSerializer,
        responses={
            200: ResolvedRequestSerializer,
            201: ResolvedRequestSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=[
            OpenApiExample(
                "Reject with a reason",
                value={"status": "rejected", "reason": "The pattern is observable as it is."},
                request_only=True,
            ),
            OpenApiExample(
                "The resolved request",
                response_only=True,
                value={
                    "id": 7,
                    "field": "description",
                    "status": "rejected",
                    "resolution_reason": "The pattern is observable as it is.",
                    "resolved_by": "senior",
                    "resolved_in_version": 1,
                },
            ),
        ],
    )
    def post(self, request, key, id):
        found = (
            ChangeRequest.objects.select_related("resolved_by", "resolved_in_version")
            .filter(pk=id, review__case__character__key=key, review__submitted_at__isnull=False)
            .first()
        )
        if found is None:
            raise NotFound("No such change request on this profile.")
        require_fresh(request, data_etag(_adjudication_data(key)))
        form = ChangeRequestResolveForm(
            data=request_body(request), character_key=key, request_id=id, prefix=None
        )
        if not form.is_valid():
            return form_error_response(form)
        wanted, reason = form.cleaned_data["status"], form.cleaned_data["reason"].strip()
        if found.status != ChangeRequest.Status.OPEN:
            if found.status == wanted and found.resolution_reason == reason:
                return Response(ResolvedRequestSerializer(found).data)
        try:
            resolved = services.change_request_resolve(
                request_id=id, arbitrator=request.user, status=wanted, reason=reason
            )
        except ReviewError as error:
            if found.status != ChangeRequest.Status.OPEN:
                return conflict(error)
            return error_response(error)
        return Response(ResolvedRequestSerializer(resolved).data, status=status.HTTP_201_CREATED)


def _edit_form_data(latest, body) -> dict:
    """The page's edit form, prefilled from the latest version as the page is, with the
    fields the request sends in place: a script sends only what it changes."""
    data = ProfileEditForm.initial_for(latest)
    patterns = body.get("core_patterns")
    if patterns is not None:
        if not isinstance(patterns, list) or len(patterns) != CORE_PATTERN_COUNT:
            raise ReviewError(
                f"Give exactly {CORE_PATTERN_COUNT} non-empty core behavioral patterns."
            )
        data.update({f"core_pattern_{i}": p for i, p in enumerate(patterns, start=1)})
    data.update({k: v for k, v in body.items() if k != "core_patterns"})
    return data


class ProfileEditApi(SeniorApi):
    @extend_schema(
        summary="Edit the profile: the changed fields become the next version",
        description=(
            "Send the fields you change (the others keep the latest version's text). The "
            "anchor trait's score changes only with `confirm_anchor_change`; the all-0.50 "
            "profile keeps its vector. Answers the edit with its field-level diff."
        ),
        parameters=[IF_MATCH],
        request=ProfileEditInputSerializer,
        responses={201: ProfileEditSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 412: ERROR},
        examples=[
            OpenApiExample(
                "Soften one pattern",
                value={
                    "description": "She tends to read situations carefully.",
                    "note": "CR 7 accepted.",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, key):
        page = _adjudication(key)
        require_fresh(request, data_etag(AdjudicationSerializer(page).data))
        if page.latest is None:
            return error_response(ReviewError(f"{key} has no profile version to edit."))
        try:
            data = _edit_form_data(page.latest, request_body(request))
        except ReviewError as error:
            return error_response(error)
        form = ProfileEditForm(data=data, character_key=key)
        if not form.is_valid():
            return form_error_response(form)
        try:
            edit = services.profile_edit(
                character_key=key,
                editor=request.user,
                values=form.values(),
                confirm_anchor_change=form.cleaned_data["confirm_anchor_change"],
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            return error_response(error)
        return Response(ProfileEditSerializer(edit).data, status=status.HTTP_201_CREATED)


class ProfileEditDetailApi(SeniorApi):
    @extend_schema(
        summary="One senior edit and its field-level diff",
        responses={200: ProfileEditSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, id):
        edit = not_found(lambda: selectors.edit_get(edit_id=id))
        return Response(ProfileEditSerializer(edit).data)


class ProfileFreezeApi(SeniorApi):
    @extend_schema(
        summary="The final suitability check: freeze the latest version",
        description=(
            "Every change request must be resolved and `suitability_confirmed` true. "
            "Freezing an already frozen profile with the same note answers 200 with the "
            "frozen version; another note answers 409."
        ),
        parameters=[IF_MATCH],
        request=FreezeInputSerializer,
        responses={
            200: FrozenVersionSerializer,
            201: FrozenVersionSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=[
            OpenApiExample(
                "Freeze",
                value={"suitability_confirmed": True, "note": "Fit for memory generation."},
                request_only=True,
            ),
            OpenApiExample(
                "The frozen version",
                response_only=True,
                value={
                    "character": "CHAR_01",
                    "version": 2,
                    "frozen_at": "2026-01-01T10:00:00Z",
                    "frozen_by": "senior",
                    "suitability_note": "Fit for memory generation.",
                },
            ),
        ],
    )
    def post(self, request, key):
        page = _adjudication(key)
        require_fresh(request, data_etag(AdjudicationSerializer(page).data))
        form = FreezeForm(data=request_body(request), character_key=key)
        if not form.is_valid():
            return form_error_response(form)
        latest = page.latest
        if latest is not None and latest.is_frozen:
            frozen = FrozenVersionSerializer(latest).data
            if frozen["suitability_note"] == form.cleaned_data["note"].strip():
                return Response(frozen)
            return conflict(f"{latest} is already frozen.")
        try:
            version = services.profile_freeze(
                character_key=key,
                arbitrator=request.user,
                suitability_confirmed=form.cleaned_data["suitability_confirmed"],
                note=form.cleaned_data["note"],
            )
        except ReviewError as error:
            return error_response(error)
        return Response(FrozenVersionSerializer(version).data, status=status.HTTP_201_CREATED)
