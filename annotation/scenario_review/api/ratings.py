"""A scenario's pass-2 DIAMONDS ratings over REST (/api/review/scenarios/<id>/ratings/)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status

from annotation.profile_review.api.common import CONFLICT, ERROR, request_body
from annotation.scenario_review import actions
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import DiamondsRatingForm
from core.actions import validated
from core.api import IF_MATCH
from core.text_rules import NOTE, SerializerTextRules

from . import examples
from .common import ReviewerWriteApi, flat_scores, fresh_page, page_answer, refused_response
from .serializers import ScenarioReviewPageSerializer, scores_field


class RatingInputSerializer(SerializerTextRules, serializers.Serializer):
    scores = scores_field()
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


class ScenarioRatingApi(ReviewerWriteApi):
    @extend_schema(
        summary="Submit your independent pass-2 DIAMONDS ratings",
        description=(
            "All eight dimensions, 1-7. The same ratings again answer 200; different "
            "ones once you have rated answer 409 (a rating cannot change)."
        ),
        parameters=[IF_MATCH],
        request=RatingInputSerializer,
        responses={
            200: ScenarioReviewPageSerializer,
            201: ScenarioReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.SCENARIO_RATING_POST,
    )
    def post(self, request, scenario_id):
        page = fresh_page(request, scenario_id)
        form = DiamondsRatingForm(
            data=flat_scores(request_body(request), "scores"), scenario_id=scenario_id
        )
        validated(form)
        own = page.own_rating
        if own is not None and own.scores() == form.scores():
            return page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_rate(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return refused_response(refused, final=own is not None)
        return page_answer(request, scenario_id)
