"""The construction-stage reviews over REST (/api/review/). Thin: validate, call a
service or selector, serialize. The blinding of the pages holds here too: every read
goes through the same selectors."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.life_stages import LIFE_STAGE_CHOICES
from annotation.profile_review import selectors, services
from annotation.profile_review.models import (
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_FIELDS,
    DIAMONDS_MAX,
    DIAMONDS_MIN,
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_CHOICES,
    CriterionJudgement,
    Recommendation,
    ReviewError,
)
from annotation.scenario_review.celery_tasks import dispatch_blueprint_expansion
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


def _scores_field(**kwargs):
    return serializers.DictField(
        child=serializers.IntegerField(min_value=DIAMONDS_MIN, max_value=DIAMONDS_MAX),
        help_text=f"Keys: {', '.join(DIAMONDS_FIELDS)}.",
        **kwargs,
    )


class RatingSerializer(serializers.Serializer):
    reviewer = serializers.CharField(source="reviewer.username")
    scores = serializers.SerializerMethodField()
    note = serializers.CharField()
    submitted_at = serializers.DateTimeField()

    def get_scores(self, rating) -> dict[str, int]:
        return rating.scores()


class ScreeningSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version.number")
    reviewer = serializers.CharField(source="reviewer.username")
    decision = serializers.CharField()
    note = serializers.CharField()


class ScenarioQueueRowSerializer(serializers.Serializer):
    scenario_id = serializers.CharField(source="scenario.scenario_id")
    stage = serializers.CharField(source="scenario.stage")
    review_stage = serializers.CharField(source="review.stage", allow_null=True)
    your_status = serializers.CharField()
    needs_you = serializers.BooleanField()


class ScenarioReviewPageSerializer(serializers.Serializer):
    scenario_id = serializers.CharField(source="scenario.scenario_id")
    review_stage = serializers.CharField(source="stage")
    version = serializers.IntegerField(source="version.number", allow_null=True)
    screenings = ScreeningSerializer(many=True)
    ratings = RatingSerializer(source="visible_ratings", many=True)
    reassess = serializers.SerializerMethodField()
    final = serializers.SerializerMethodField()

    def get_reassess(self, page) -> list[str]:
        return [c.field for c in page.comparison if c.reassess]

    def get_final(self, page) -> dict[str, int] | None:
        final = getattr(page.review, "final", None) if page.review else None
        return final.scores() if final else None


class RatingInputSerializer(serializers.Serializer):
    scores = _scores_field()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class CoverageSerializer(serializers.Serializer):
    n_final = serializers.IntegerField()
    distribution = serializers.SerializerMethodField()
    life_stages = serializers.SerializerMethodField()
    agreement = serializers.SerializerMethodField()

    def get_distribution(self, c) -> dict[str, list[int]]:
        return {r.field: r.counts for r in c.distribution}

    def get_life_stages(self, c) -> dict[str, int]:
        return {s.key: s.total for s in c.stages}

    def get_agreement(self, c) -> list[dict]:
        return [
            {
                "dimension": a.label,
                "units": a.n_units,
                "krippendorff_alpha_ordinal": a.alpha.value,
                "cohen_kappa_linear": a.kappa_linear.value,
                "cohen_kappa_quadratic": a.kappa_quadratic.value,
            }
            for a in c.agreement
        ]


class BlueprintSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    title = serializers.CharField()
    summary = serializers.CharField()
    stage = serializers.ChoiceField(choices=LIFE_STAGE_CHOICES)
    diamonds_dimension = serializers.ChoiceField(choices=DIAMONDS_DIMENSION_CHOICES)
    status = serializers.CharField(read_only=True)
    error = serializers.CharField(read_only=True)
    scenario_id = serializers.CharField(
        source="scenario.scenario_id", read_only=True, allow_null=True
    )


# --- Views --------------------------------------------------------------------------------

ERROR = inline_serializer(
    "ReviewErrorResponse", {"detail": serializers.ListField(child=serializers.CharField())}
)


def _error(error: ReviewError) -> Response:
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def _not_found(call):
    from django.http import Http404

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
        page = _not_found(
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
            return _error(error)
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
            return _error(error)
        return Response(ChangeRequestSerializer(created).data, status=status.HTTP_201_CREATED)


class ProfileOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="Initial review outcomes (like seed 000 Table 6)", responses=OutcomeTableSerializer
    )
    def get(self, request):
        return Response(OutcomeTableSerializer(selectors.profile_outcome_table()).data)


class ScenarioReadApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.SCENARIO_REVIEWER, Role.ADMIN)
    write_roles = (Role.SCENARIO_REVIEWER,)


class ScenarioQueueApi(ScenarioReadApi):
    @extend_schema(
        summary="Scenarios and your review status", responses=ScenarioQueueRowSerializer(many=True)
    )
    def get(self, request):
        rows = selectors.scenario_review_queue(user=request.user)
        return Response(ScenarioQueueRowSerializer(rows, many=True).data)


class ScenarioReviewDetailApi(ScenarioReadApi):
    @extend_schema(
        summary="A scenario's two-pass review",
        description=(
            "`ratings` holds the other reviewer's pass-2 rating only once yours is submitted."
        ),
        responses=ScenarioReviewPageSerializer,
    )
    def get(self, request, scenario_id):
        page = _not_found(
            lambda: selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
        )
        return Response(ScenarioReviewPageSerializer(page).data)


class ScenarioRatingApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)

    @extend_schema(
        summary="Submit your independent pass-2 DIAMONDS ratings",
        request=RatingInputSerializer,
        responses={201: ScenarioReviewPageSerializer, 400: ERROR},
    )
    def post(self, request, scenario_id):
        data = RatingInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.scenario_rate(
                scenario_id=scenario_id,
                reviewer=request.user,
                scores=data.validated_data["scores"],
                note=data.validated_data["note"],
            )
        except ReviewError as error:
            return _error(error)
        page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
        return Response(ScenarioReviewPageSerializer(page).data, status=status.HTTP_201_CREATED)


class ScenarioCoverageApi(ScenarioReadApi):
    @extend_schema(
        summary="DIAMONDS coverage, scenarios per bin and agreement", responses=CoverageSerializer
    )
    def get(self, request):
        return Response(CoverageSerializer(selectors.scenario_coverage()).data)


class BlueprintListApi(ScenarioReadApi):
    @extend_schema(summary="Scenario blueprints", responses=BlueprintSerializer(many=True))
    def get(self, request):
        return Response(BlueprintSerializer(selectors.blueprint_list()[:100], many=True).data)

    @extend_schema(
        summary="Draft a blueprint; a worker expands it into a draft scenario",
        request=BlueprintSerializer,
        responses={202: BlueprintSerializer, 400: ERROR},
    )
    def post(self, request):
        data = BlueprintSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            blueprint = services.blueprint_create(user=request.user, **data.validated_data)
        except ReviewError as error:
            return _error(error)
        dispatch_blueprint_expansion(blueprint.pk)
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)


class BlueprintDetailApi(ScenarioReadApi):
    @extend_schema(summary="One blueprint and its expansion", responses=BlueprintSerializer)
    def get(self, request, id):
        blueprint = _not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        return Response(BlueprintSerializer(blueprint).data)
