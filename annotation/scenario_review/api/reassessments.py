"""A scenario's re-assessment of split dimensions over REST
(/api/review/scenarios/<id>/reassessment/ and .../confirm/): one reviewer proposes the
agreed values, another confirms them.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status

from annotation.profile_review.api.common import ERROR, request_body
from annotation.scenario_review import actions
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.forms import ReassessmentConfirmForm, ReassessmentForm
from core.actions import validated
from core.api import IF_MATCH
from core.text_rules import NOTE, SerializerTextRules

from . import examples
from .common import ReviewerWriteApi, flat_scores, fresh_page, page_answer, refused_response
from .serializers import ScenarioReviewPageSerializer, scores_field


class ReassessProposalInputSerializer(SerializerTextRules, serializers.Serializer):
    agreed = scores_field(help_text="The split dimensions only.")
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


class ReassessConfirmInputSerializer(SerializerTextRules, serializers.Serializer):
    proposal = serializers.IntegerField(help_text="The id of the proposal being confirmed.")
    agreed = scores_field(help_text="The values read in that proposal.")
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")


def _split(page) -> list[str]:
    return [c.field for c in page.comparison if c.reassess]


class ScenarioReassessApi(ReviewerWriteApi):
    @extend_schema(
        summary="Propose (or counter-propose) the final values of the re-assessed dimensions",
        description=(
            "Only the two raters, only the dimensions more than one point apart. Nothing is "
            "final until the other reviewer confirms the proposal."
        ),
        parameters=[IF_MATCH],
        request=ReassessProposalInputSerializer,
        responses={
            201: ScenarioReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples.SCENARIO_REASSESS_POST,
    )
    def post(self, request, scenario_id):
        page = fresh_page(request, scenario_id)
        body = request_body(request)
        form = ReassessmentForm(
            data=flat_scores(body, "agreed"), scenario_id=scenario_id, dimensions=_split(page)
        )
        try:
            # A dimension the pages do not offer is the service's to refuse, in its words.
            actions.scenario_reassess_propose(
                form,
                user=request.user,
                scenario_id=scenario_id,
                unoffered=body.get("agreed") or {},
            )
        except ActionRefused as refused:
            return refused_response(refused)
        return page_answer(request, scenario_id)


class ScenarioReassessConfirmApi(ReviewerWriteApi):
    @extend_schema(
        summary="Confirm the other reviewer's current re-assessment proposal",
        description=(
            "Name the proposal and the values read in it; a proposal replaced since is "
            "refused. The confirmation records the final ratings and completes the review. "
            "Confirming the proposal that was confirmed again answers 200."
        ),
        parameters=[IF_MATCH],
        request=ReassessConfirmInputSerializer,
        responses={
            200: ScenarioReviewPageSerializer,
            201: ScenarioReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples.SCENARIO_REASSESS_CONFIRM_POST,
    )
    def post(self, request, scenario_id):
        page = fresh_page(request, scenario_id)
        body = request_body(request)
        confirmed = page.confirmed_proposal
        split = _split(page) or (list(confirmed.values) if confirmed else [])
        data = {**flat_scores(body, "agreed"), "proposal": body.get("proposal")}
        data["note"] = body.get("note") or ""
        form = ReassessmentConfirmForm(data=data, scenario_id=scenario_id, dimensions=split)
        validated(form)
        if confirmed is not None and confirmed.pk == form.cleaned_data["proposal"]:
            if confirmed.values == form.agreed():
                return page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_reassess_confirm(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return refused_response(refused)
        return page_answer(request, scenario_id)
