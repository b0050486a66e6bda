"""A scenario's pass-1 screening over REST (/api/review/scenarios/<id>/screening/)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status

from annotation.profile_review.api.common import CONFLICT, ERROR, request_body
from annotation.scenario_review import actions
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import ScreeningForm
from annotation.scenario_review.models import ScreeningDecision
from core.actions import validated
from core.api import IF_MATCH
from core.text_rules import NOTE, SerializerTextRules

from . import examples
from .common import ReviewerWriteApi, fresh_page, page_answer, refused_response
from .serializers import ScenarioReviewPageSerializer


class ScreeningInputSerializer(SerializerTextRules, serializers.Serializer):
    decision = serializers.ChoiceField(choices=ScreeningDecision.Decision.choices)
    logically_consistent = serializers.BooleanField(default=False)
    psychologically_plausible = serializers.BooleanField(default=False)
    character_agnostic = serializers.BooleanField(default=False)
    note = serializers.CharField(
        max_length=NOTE, required=False, allow_blank=True, help_text="Required to flag."
    )


class ScenarioScreenApi(ReviewerWriteApi):
    @extend_schema(
        summary="Record your pass-1 decision on the version under screening",
        description=(
            "Approve only when all three checks hold; a flag needs a note and sends the "
            "scenario to revision. The same decision again answers 200; another decision "
            "on a version you screened answers 409."
        ),
        parameters=[IF_MATCH],
        request=ScreeningInputSerializer,
        responses={
            200: ScenarioReviewPageSerializer,
            201: ScenarioReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.SCENARIO_SCREEN_POST,
    )
    def post(self, request, scenario_id):
        page = fresh_page(request, scenario_id)
        form = ScreeningForm(data=request_body(request), scenario_id=scenario_id)
        wanted = validated(form)
        mine = next(
            (
                s
                for s in page.current_screenings
                if s.reviewer_id == request.user.pk and page.version is not None
            ),
            None,
        )
        if mine is not None:
            same = all(
                getattr(mine, f) == (wanted[f].strip() if f == "note" else wanted[f])
                for f in wanted
            )
            if same:
                return page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_screen(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return refused_response(refused, final=mine is not None)
        return page_answer(request, scenario_id)
