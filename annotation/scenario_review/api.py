"""Scenario review and blueprints over REST (/api/review/): the reads and the
blueprints. The review's writes (pass 1, revision, pass 2, re-assessment, manual entry)
are in ``api_writes``. Thin: validate with the page's form, call the page's service,
serialize. The blinding of the pages holds here too: every read goes through the same
selectors."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.models import SCENARIO_CONTENT_LIMITS as CONTENT_LIMITS
from annotation.profile_review.api import (
    ERROR,
    answer,
    error_response,
    not_found,
    request_body,
)
from annotation.profile_review.models import ReviewError
from annotation.scenario_review import blueprints, selectors
from annotation.scenario_review.forms import BlueprintForm
from annotation.scenario_review.models import (
    BLUEPRINT_TITLE_MAX,
    DIAMONDS_DIMENSION_CHOICES,
    DIAMONDS_FIELDS,
    DIAMONDS_MAX,
    DIAMONDS_MIN,
    ScenarioBlueprint,
    ScenarioReview,
)
from core.api import (
    ListFilter,
    form_error_response,
    list_parameters,
    list_response,
    paginated_schema,
)
from core.life_stages import LIFE_STAGE_CHOICES
from core.roles import HasRole, Role
from core.tasks import enqueue_on_commit
from core.text_rules import NOTE, SerializerTextRules

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
    logically_consistent = serializers.BooleanField()
    psychologically_plausible = serializers.BooleanField()
    character_agnostic = serializers.BooleanField()
    note = serializers.CharField()


class ScenarioContentSerializer(SerializerTextRules, serializers.Serializer):
    """The four-component schema (App. C.1 Table 11) of the version under review."""

    stage = serializers.CharField(max_length=CONTENT_LIMITS["stage"])
    age = serializers.IntegerField()
    age_range = serializers.CharField(max_length=CONTENT_LIMITS["age_range"])
    diamonds_dimension = serializers.CharField(
        max_length=CONTENT_LIMITS["diamonds_dimension"], allow_blank=True
    )
    name = serializers.CharField(max_length=CONTENT_LIMITS["name"])
    category = serializers.CharField(max_length=CONTENT_LIMITS["category"])
    intensity = serializers.CharField(max_length=CONTENT_LIMITS["intensity"])
    description_for_agent = serializers.CharField(
        max_length=CONTENT_LIMITS["description_for_agent"]
    )
    setting_location = serializers.CharField(max_length=CONTENT_LIMITS["setting_location"])
    setting_time = serializers.CharField(max_length=CONTENT_LIMITS["setting_time"])
    setting_atmosphere = serializers.CharField(max_length=CONTENT_LIMITS["setting_atmosphere"])
    context_text = serializers.CharField(max_length=CONTENT_LIMITS["context_text"])
    trigger_sender = serializers.CharField(max_length=CONTENT_LIMITS["trigger_sender"])
    trigger_message = serializers.CharField(max_length=CONTENT_LIMITS["trigger_message"])
    action_required = serializers.CharField(
        max_length=CONTENT_LIMITS["action_required"], allow_blank=True
    )


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
    content = ScenarioContentSerializer(source="version", allow_null=True)
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


class RatingInputSerializer(SerializerTextRules, serializers.Serializer):
    scores = _scores_field()
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


class ReassessProposalInputSerializer(SerializerTextRules, serializers.Serializer):
    agreed = _scores_field(help_text="The split dimensions only.")
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


class ReassessConfirmInputSerializer(SerializerTextRules, serializers.Serializer):
    proposal = serializers.IntegerField(help_text="The id of the proposal being confirmed.")
    agreed = _scores_field(help_text="The values read in that proposal.")
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


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


class BlueprintSerializer(SerializerTextRules, serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    title = serializers.CharField(max_length=BLUEPRINT_TITLE_MAX)
    summary = serializers.CharField(max_length=NOTE)
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


def review_page_data(request, scenario_id) -> dict:
    """The scenario's review as the caller may see it (404 for an unknown scenario)."""
    page = not_found(
        lambda: selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    )
    return ScenarioReviewPageSerializer(page).data


QUEUE_FILTERS = [
    ListFilter(
        "review_stage",
        "review.stage",
        description="The review's stage.",
        choices=tuple(ScenarioReview.Stage.values),
    ),
    ListFilter("stage", "scenario.stage", description="The life-stage bin."),
    ListFilter("needs_you", "needs_you", bool, description="Only what awaits you (or not)."),
]
QUEUE_ORDERINGS = {
    "scenario_id": "scenario.scenario_id",
    "age": "scenario.age",
    "review_stage": "review.stage",
}


class ScenarioQueueApi(ScenarioReadApi):
    @extend_schema(
        operation_id="review_scenarios_list",
        summary="Scenarios and your review status",
        description=(
            "Every scenario with its review stage and what you have done; never the other "
            "reviewer's ratings or whether they have rated. Unordered, the list follows "
            "the page: by age, then id."
        ),
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses=paginated_schema(ScenarioQueueRowSerializer),
        examples=[
            OpenApiExample(
                "A page of the queue",
                response_only=True,
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "scenario_id": "SCN_SCHOOL_AGE_1",
                            "stage": "school_age",
                            "review_stage": "rating",
                            "your_status": "Pass 2: rate it",
                            "needs_you": True,
                        }
                    ],
                },
            )
        ],
    )
    def get(self, request):
        rows = selectors.scenario_review_queue(user=request.user)
        return list_response(
            request,
            self,
            rows,
            ScenarioQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )


class ScenarioReviewDetailApi(ScenarioReadApi):
    @extend_schema(
        summary="A scenario's two-pass review",
        description=(
            "`ratings` holds the other reviewer's pass-2 rating only once yours is "
            "submitted. The `ETag` names this state; send it in `If-Match` with a write."
        ),
        responses={200: ScenarioReviewPageSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, scenario_id):
        return answer(review_page_data(request, scenario_id))


class ScenarioCoverageApi(ScenarioReadApi):
    @extend_schema(
        summary="DIAMONDS coverage, scenarios per bin and agreement",
        description="The coverage page's numbers: final ratings per bin, life stages, agreement.",
        responses=CoverageSerializer,
        examples=[
            OpenApiExample(
                "Coverage",
                response_only=True,
                value={
                    "n_final": 0,
                    "distribution": {"duty": [0, 0, 0, 0, 0, 0, 0]},
                    "life_stages": {"school_age": 1},
                    "agreement": [],
                },
            )
        ],
    )
    def get(self, request):
        return Response(CoverageSerializer(selectors.scenario_coverage()).data)


BLUEPRINT_FILTERS = [
    ListFilter("status", "status", choices=tuple(ScenarioBlueprint.Status.values)),
    ListFilter("stage", "stage", description="The life-stage bin."),
]
BLUEPRINT_ORDERINGS = {"created_at": "created_at", "title": "title", "status": "status"}
BLUEPRINT_EXAMPLE = {
    "title": "The lost notebook",
    "summary": "A classmate finds your notebook and reads it aloud.",
    "stage": "school_age",
    "diamonds_dimension": "Negativity",
}


class BlueprintListApi(ScenarioReadApi):
    @extend_schema(
        operation_id="review_blueprints_list",
        summary="Scenario blueprints",
        description="Newest first unless ordered otherwise.",
        parameters=list_parameters(BLUEPRINT_FILTERS, BLUEPRINT_ORDERINGS),
        responses=paginated_schema(BlueprintSerializer),
        examples=[
            OpenApiExample(
                "A page of blueprints",
                response_only=True,
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": 1,
                            **BLUEPRINT_EXAMPLE,
                            "status": "done",
                            "error": "",
                            "scenario_id": "SCN_SCHOOL_AGE_2",
                        }
                    ],
                },
            )
        ],
    )
    def get(self, request):
        return list_response(
            request,
            self,
            selectors.blueprint_list(),
            BlueprintSerializer,
            filters=BLUEPRINT_FILTERS,
            orderings=BLUEPRINT_ORDERINGS,
        )

    @extend_schema(
        summary="Draft a blueprint; a worker expands it into a draft scenario",
        description="Scenario reviewers only. The expansion runs on a Celery worker.",
        request=BlueprintSerializer,
        responses={202: BlueprintSerializer, 400: ERROR, 403: ERROR},
        examples=[OpenApiExample("A blueprint", value=BLUEPRINT_EXAMPLE, request_only=True)],
    )
    def post(self, request):
        form = BlueprintForm(data=request_body(request))
        if not form.is_valid():
            return form_error_response(form)
        try:
            blueprint = blueprints.blueprint_create(user=request.user, **form.cleaned_data)
        except ReviewError as error:
            return error_response(error)
        enqueue_on_commit(
            "annotation.expand_scenario_blueprint", blueprint.pk, what=f"Blueprint {blueprint.pk}"
        )
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)


class BlueprintDetailApi(ScenarioReadApi):
    @extend_schema(
        summary="One blueprint and its expansion",
        responses={200: BlueprintSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, id):
        blueprint = not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        return Response(BlueprintSerializer(blueprint).data)


class BlueprintQueueApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)

    @extend_schema(
        summary="Queue a blueprint's expansion again (a failed one is retried)",
        description="As the page's button: a failed expansion is reset, then queued.",
        request=None,
        responses={202: BlueprintSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request, id):
        blueprint = not_found(lambda: selectors.blueprint_get(blueprint_id=id))
        if blueprint.status == ScenarioBlueprint.Status.FAILED:
            try:
                blueprints.blueprint_retry(blueprint_id=id, user=request.user)
            except ReviewError as error:
                return error_response(error)
        enqueue_on_commit("annotation.expand_scenario_blueprint", id, what=f"Blueprint {id}")
        blueprint = selectors.blueprint_get(blueprint_id=id)
        return Response(BlueprintSerializer(blueprint).data, status=status.HTTP_202_ACCEPTED)
