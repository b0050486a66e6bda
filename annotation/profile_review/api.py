"""Profile review over REST (/api/review/). Thin: validate, call a service or selector,
serialize. The blinding of the pages holds here too: every read goes through the same
selectors. ``ERROR``, ``error_response`` and ``not_found`` serve scenario review's API
too."""

from django.http import Http404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.profile_review import selectors, services
from annotation.profile_review.models import (
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_CHOICES,
    CriterionJudgement,
    Recommendation,
    ReviewError,
)
from heartbench_site.base.roles import HasRole, Role

# --- Serializers --------------------------------------------------------------------------


class ChangeRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    field = serializers.ChoiceField(choices=PROFILE_FIELD_CHOICES)
    passage = serializers.CharField()
    concern = serializers.CharField()
    suggested_correction = serializers.CharField()
    status = serializers.CharField(read_only=True)
    resolution_reason = serializers.CharField(read_only=True)


class ProfileReviewSerializer(serializers.Serializer):
    recommendation = serializers.ChoiceField(choices=Recommendation.choices, allow_blank=True)
    criteria = serializers.SerializerMethodField()
    explanation = serializers.CharField()
    unresolved_concern = serializers.CharField()
    missing_information = serializers.CharField()
    submitted_at = serializers.DateTimeField(allow_null=True)
    change_requests = ChangeRequestSerializer(source="requests", many=True)

    def get_criteria(self, review) -> dict[str, str]:
        return {n: getattr(review, n) for n in PROFILE_CRITERIA_FIELDS}


class AdjudicatedReviewSerializer(ProfileReviewSerializer):
    reviewer = serializers.CharField(source="reviewer.username")


class ProfileFieldSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    text = serializers.CharField()


class ProfileQueueRowSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    latest_version = serializers.IntegerField(source="latest.number", allow_null=True)
    state = serializers.CharField()
    your_review = serializers.SerializerMethodField()

    def get_your_review(self, row) -> str | None:
        if row.own_review is None:
            return None
        return "submitted" if row.own_review.is_submitted else "draft"


class ProfileReviewPageSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    version = serializers.IntegerField(source="version.number", allow_null=True)
    trait_anchor = serializers.CharField(source="version.trait_anchor", allow_null=True)
    case_status = serializers.CharField(source="case.status", allow_null=True)
    fields = ProfileFieldSerializer(many=True)
    can_review = serializers.BooleanField()
    closed_reason = serializers.CharField()
    your_review = ProfileReviewSerializer(source="own_review", allow_null=True)
    adjudicated_reviews = AdjudicatedReviewSerializer(many=True)


class ProfileReviewInputSerializer(serializers.Serializer):
    recommendation = serializers.ChoiceField(
        choices=Recommendation.choices, required=False, allow_blank=True
    )
    criteria = serializers.DictField(
        child=serializers.ChoiceField(choices=CriterionJudgement.choices, allow_blank=True),
        required=False,
        help_text=f"Keys: {', '.join(PROFILE_CRITERIA_FIELDS)}.",
    )
    explanation = serializers.CharField(required=False, allow_blank=True, default="")
    unresolved_concern = serializers.CharField(required=False, allow_blank=True, default="")
    missing_information = serializers.CharField(required=False, allow_blank=True, default="")
    submit = serializers.BooleanField(default=False)


class OutcomeRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    count = serializers.IntegerField()
    percent = serializers.FloatField(allow_null=True)
    characters = serializers.ListField(child=serializers.CharField())


class OutcomeTableSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    rows = OutcomeRowSerializer(many=True)


# --- Views --------------------------------------------------------------------------------

ERROR = inline_serializer(
    "ReviewErrorResponse", {"detail": serializers.ListField(child=serializers.CharField())}
)


def error_response(error: ReviewError) -> Response:
    """A ``ReviewError`` as a 400 response (``ERROR`` documents its shape)."""
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def not_found(call):
    """``call()``, with a selector's ``Http404`` turned into the API's 404."""
    try:
        return call()
    except Http404 as missing:
        raise NotFound(str(missing)) from None


class ProfileReviewApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)


class AnnotatorApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR,)


class ProfileQueueApi(ProfileReviewApi):
    @extend_schema(
        summary="Characters and their profile-review state",
        responses=ProfileQueueRowSerializer(many=True),
    )
    def get(self, request):
        rows = selectors.profile_review_queue(user=request.user)
        return Response(ProfileQueueRowSerializer(rows, many=True).data)


class ProfileReviewDetailApi(AnnotatorApi):
    @extend_schema(
        summary="The version under review and your own review",
        description="Other annotators' reviews appear only once the profile is frozen.",
        responses=ProfileReviewPageSerializer,
    )
    def get(self, request, key):
        page = not_found(
            lambda: selectors.profile_review_page(character_key=key, user=request.user)
        )
        return Response(ProfileReviewPageSerializer(page).data)

    @extend_schema(
        summary="Save (or submit) your review",
        request=ProfileReviewInputSerializer,
        responses={200: ProfileReviewPageSerializer, 400: ERROR},
    )
    def post(self, request, key):
        data = ProfileReviewInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.profile_review_save(
                character_key=key, reviewer=request.user, **data.validated_data
            )
        except ReviewError as error:
            return error_response(error)
        page = selectors.profile_review_page(character_key=key, user=request.user)
        return Response(ProfileReviewPageSerializer(page).data)


class ChangeRequestCreateApi(AnnotatorApi):
    @extend_schema(
        summary="Add a field-level change request to your review",
        request=ChangeRequestSerializer,
        responses={201: ChangeRequestSerializer, 400: ERROR},
    )
    def post(self, request, key):
        data = ChangeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            created = services.change_request_add(
                character_key=key, reviewer=request.user, **data.validated_data
            )
        except ReviewError as error:
            return error_response(error)
        return Response(ChangeRequestSerializer(created).data, status=status.HTTP_201_CREATED)


class ProfileOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="Initial review outcomes (like seed 000 Table 6)", responses=OutcomeTableSerializer
    )
    def get(self, request):
        return Response(OutcomeTableSerializer(selectors.profile_outcome_table()).data)
