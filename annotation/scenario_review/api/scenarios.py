"""Scenarios over REST (/api/review/scenarios/): the review queue, one scenario's review
as its page shows it (blinded by the same selectors), and a scenario entered by hand.
"""

from drf_spectacular.utils import extend_schema

from annotation.profile_review.api.common import ERROR, answer, request_body
from annotation.scenario_review import actions, selectors
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import ScenarioContentForm
from annotation.scenario_review.models import ScenarioReview
from core.api import ListFilter, list_parameters, list_response, paginated_schema

from . import examples
from .common import (
    ReviewerWriteApi,
    ScenarioReadApi,
    page_answer,
    refused_response,
    review_page_data,
)
from .serializers import (
    ScenarioContentSerializer,
    ScenarioQueueRowSerializer,
    ScenarioReviewPageSerializer,
)

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
        examples=examples.SCENARIO_QUEUE_GET,
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


class ScenarioCreateApi(ReviewerWriteApi):
    @extend_schema(
        summary="Enter a scenario by hand",
        description=(
            "The four-component schema of the page's form; the age must lie in the "
            "life-stage bin. The scenario gets a programmatic id and awaits pass 1."
        ),
        request=ScenarioContentSerializer,
        responses={201: ScenarioReviewPageSerializer, 400: ERROR, 403: ERROR},
        examples=examples.SCENARIO_CREATE_POST,
    )
    def post(self, request):
        form = ScenarioContentForm(data=request_body(request), action="", submit_label="")
        try:
            scenario = actions.scenario_create(form, user=request.user)
        except ActionRefused as refused:
            return refused_response(refused)
        return page_answer(request, scenario.scenario_id)
