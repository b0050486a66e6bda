"""Scenario review and blueprints over REST (/api/review/). Thin: validate, call a
service or selector, serialize. The blinding of the pages holds here too: every read
goes through the same selectors."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.life_stages import LIFE_STAGE_CHOICES
from annotation.profile_review.api import ERROR, error_response, not_found
from annotation.profile_review.models import ReviewError
from annotation.scenario_review import blueprints, selectors, services
from annotation.scenario_review.celery_tasks import dispatch_blueprint_expansion
from annotation.scenario_review.models import (
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_FIELDS,
    DIAMONDS_MAX,
    DIAMONDS_MIN,
)
from heartbench_site.base.roles import HasRole, Role

# --- Serializers --------------------------------------------------------------------------


def _scores_field(**kwargs):
    kwargs.setdefault("help_text", f"Keys: {', '.join(DIAMONDS_FIELDS)}.")
    return serializers.DictField(
        child=serializers.IntegerField(min_value=DIAMONDS_MIN, max_value=DIAMONDS_MAX), **kwargs
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
    reassessment = serializers.SerializerMethodField()
    final = serializers.SerializerMethodField()

    def get_reassess(self, page) -> list[str]:
        return [c.field for c in page.comparison if c.reassess]

    def get_reassessment(self, page) -> dict | None:
        """The joint re-assessment: the proposal awaiting confirmation and whom it waits
        for while it is open; who proposed and who confirmed once it is recorded."""
        proposal = page.current_proposal or page.confirmed_proposal
        if proposal is None:
            return None
        final = page.confirmed_proposal is not None
        return {
            "proposal": proposal.pk,
            "proposed_by": proposal.proposed_by.get_username(),
            "values": proposal.values,
            "note": proposal.note,
            "awaiting": "" if final else page.awaiting,
            "confirmed_by": page.review.final.recorded_by.get_username() if final else "",
        }

    def get_final(self, page) -> dict[str, int] | None:
        final = getattr(page.review, "final", None) if page.review else None
        return final.scores() if final else None


class RatingInputSerializer(serializers.Serializer):
    scores = _scores_field()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class ReassessProposalInputSerializer(serializers.Serializer):
    agreed = _scores_field(help_text="The split dimensions only.")
    note = serializers.CharField(required=False, allow_blank=True, default="")


class ReassessConfirmInputSerializer(serializers.Serializer):
    proposal = serializers.IntegerField(help_text="The id of the proposal being confirmed.")
    agreed = _scores_field(help_text="The values read in that proposal.")
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
        page = not_found(
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
            return error_response(error)
        page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
        return Response(ScenarioReviewPageSerializer(page).data, status=status.HTTP_201_CREATED)


class ScenarioReassessApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)

    @extend_schema(
        summary="Propose (or counter-propose) the final values of the re-assessed dimensions",
        description="Nothing is final until the other reviewer confirms the proposal.",
        request=ReassessProposalInputSerializer,
        responses={201: ScenarioReviewPageSerializer, 400: ERROR},
    )
    def post(self, request, scenario_id):
        data = ReassessProposalInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.scenario_reassess_propose(
                scenario_id=scenario_id,
                reviewer=request.user,
                agreed=data.validated_data["agreed"],
                note=data.validated_data["note"],
            )
        except ReviewError as error:
            return error_response(error)
        page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
        return Response(ScenarioReviewPageSerializer(page).data, status=status.HTTP_201_CREATED)


class ScenarioReassessConfirmApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)

    @extend_schema(
        summary="Confirm the other reviewer's current re-assessment proposal",
        description=(
            "Name the proposal and the values read in it; a proposal replaced since is "
            "refused. The confirmation records the final ratings and completes the review."
        ),
        request=ReassessConfirmInputSerializer,
        responses={201: ScenarioReviewPageSerializer, 400: ERROR},
    )
    def post(self, request, scenario_id):
        data = ReassessConfirmInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.scenario_reassess_confirm(
                scenario_id=scenario_id,
                reviewer=request.user,
                proposal_id=data.validated_data["proposal"],
                agreed=data.validated_data["agreed"],
                note=data.validated_data["note"],
            )
        except ReviewError as error:
            return error_response(error)
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
            blueprint = blueprints.blueprint_create(user=request.user, **data.validated_data)
        except ReviewError as error:
            return error_response(error)
        dispatch_blueprint_expansion(blueprint.pk)
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)


class BlueprintDetailApi(ScenarioReadApi):
    @extend_schema(summary="One blueprint and its expansion", responses=BlueprintSerializer)
    def get(self, request, id):
        blueprint = not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        return Response(BlueprintSerializer(blueprint).data)
