"""Freezing a profile over REST (/api/review/profile-freeze/<key>/), the senior expert's
last step.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from annotation.profile_review import actions
from annotation.profile_review.forms import FreezeForm
from annotation.profile_review.models import ProfileReviewCase
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.actions import ActionRefused, validated
from core.api import IF_MATCH, require_fresh
from core.text_rules import SerializerTextRules

from . import examples
from .adjudications import AdjudicationSerializer, adjudication_page
from .common import CONFLICT, ERROR, SeniorApi, conflict, data_etag, refused_answer, request_body


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
        examples=examples.PROFILE_FREEZE_POST,
    )
    def post(self, request, key):
        page = adjudication_page(key)
        require_fresh(request, data_etag(AdjudicationSerializer(page).data))
        form = FreezeForm(data=request_body(request), character_key=key)
        try:
            validated(form)
        except ActionRefused as refused:
            return refused_answer(refused)
        latest = page.latest
        if latest is not None and latest.is_frozen:
            frozen = FrozenVersionSerializer(latest).data
            if frozen["suitability_note"] == form.cleaned_data["note"].strip():
                return Response(frozen)
            return conflict(f"{latest} is already frozen.")
        try:
            version = actions.profile_freeze(form, user=request.user, character_key=key)
        except ActionRefused as refused:
            return refused_answer(refused)
        return Response(FrozenVersionSerializer(version).data, status=status.HTTP_201_CREATED)
