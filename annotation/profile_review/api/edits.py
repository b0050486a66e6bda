"""The senior expert's field-level profile edits over REST (/api/review/profile-edits/):
the changed fields become the next version; one edit and its diff.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from annotation.corpus.models import CORE_PATTERN_COUNT
from annotation.profile_review import actions, selectors
from annotation.profile_review.forms import ProfileEditForm
from annotation.profile_review.models import ReviewError
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.actions import ActionRefused
from core.api import IF_MATCH, require_fresh
from core.text_rules import SerializerTextRules

from . import examples
from .adjudications import AdjudicationSerializer, adjudication_page
from .common import (
    ERROR,
    SeniorApi,
    data_etag,
    error_response,
    not_found,
    refused_answer,
    request_body,
)
from .serializers import ProfileEditSerializer


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
        examples=examples.PROFILE_EDIT_POST,
    )
    def post(self, request, key):
        page = adjudication_page(key)
        require_fresh(request, data_etag(AdjudicationSerializer(page).data))
        if page.latest is None:
            return error_response(ReviewError(f"{key} has no profile version to edit."))
        try:
            data = _edit_form_data(page.latest, request_body(request))
        except ReviewError as error:
            return error_response(error)
        form = ProfileEditForm(data=data, character_key=key)
        try:
            edit = actions.profile_edit(form, user=request.user, character_key=key)
        except ActionRefused as refused:
            return refused_answer(refused)
        return Response(ProfileEditSerializer(edit).data, status=status.HTTP_201_CREATED)


class ProfileEditDetailApi(SeniorApi):
    @extend_schema(
        summary="One senior edit and its field-level diff",
        responses={200: ProfileEditSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, id):
        edit = not_found(lambda: selectors.edit_get(edit_id=id))
        return Response(ProfileEditSerializer(edit).data)
