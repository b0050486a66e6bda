"""A scenario's revision over REST (/api/review/scenarios/<id>/revisions/)."""

from drf_spectacular.utils import extend_schema

from annotation.profile_review.api.common import ERROR, request_body
from annotation.scenario_review import actions
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import ScenarioContentForm
from core.api import IF_MATCH

from . import examples
from .common import ReviewerWriteApi, fresh_page, page_answer, refused_response
from .serializers import ScenarioContentSerializer, ScenarioReviewPageSerializer


class ScenarioReviseApi(ReviewerWriteApi):
    @extend_schema(
        summary="Propose the consensus revision of a flagged scenario",
        description=(
            "Send the fields you change and a note saying how the revision answers the "
            "flag; the others keep the version under review. Both reviewers then screen "
            "the new version."
        ),
        parameters=[IF_MATCH],
        request=ScenarioContentSerializer(partial=True),
        responses={
            201: ScenarioReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples.SCENARIO_REVISE_POST,
    )
    def post(self, request, scenario_id):
        page = fresh_page(request, scenario_id)
        body = request_body(request)
        current = page.version.content() if page.version else {}
        data = {**current, **{k: body[k] for k in body}}
        form = ScenarioContentForm(data=data, action="", submit_label="")
        try:
            actions.scenario_revise(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return refused_response(refused)
        return page_answer(request, scenario_id)
