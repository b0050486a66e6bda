"""Scenario review's writes over REST (/api/review/), seed 000 §2.3 and App. C.2: a
scenario entered by hand, the pass-1 screening and consensus revision, the independent
pass-2 ratings and the joint re-assessment. Each validates with the page's form and calls
the page's service, with the page's messages. The review record's ``ETag`` (its GET)
guards every write through ``If-Match``; a submit repeated as it was answers 200, a
different one on a recorded decision 409."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.response import Response

from annotation.profile_review.api import (
    CONFLICT,
    ERROR,
    answer,
    conflict,
    data_etag,
    error_response,
    request_body,
)
from annotation.scenario_review import actions, selectors
from annotation.scenario_review.actions import ActionRefused
from annotation.scenario_review.api import (
    RatingInputSerializer,
    ReassessConfirmInputSerializer,
    ReassessProposalInputSerializer,
    ScenarioContentSerializer,
    ScenarioReadApi,
    ScenarioReviewPageSerializer,
    review_page_data,
)
from annotation.scenario_review.forms import (
    DiamondsRatingForm,
    ReassessmentConfirmForm,
    ReassessmentForm,
    ScenarioContentForm,
    ScreeningForm,
)
from annotation.scenario_review.models import ScreeningDecision
from core.actions import validated
from core.api import IF_MATCH, form_error_response, require_fresh
from core.roles import Role
from core.text_rules import NOTE, SerializerTextRules

SCORES_EXAMPLE = dict(
    duty=5, intellect=3, adversity=6, mating=1, positivity=2, negativity=6, deception=2, sociality=5
)
CONTENT_EXAMPLE = {
    "stage": "school_age",
    "age": 9,
    "age_range": "6-11",
    "diamonds_dimension": "Negativity",
    "name": "The lost notebook",
    "category": "peer conflict",
    "intensity": "moderate",
    "description_for_agent": "A classmate reads your notebook aloud.",
    "setting_location": "The classroom before the bell.",
    "setting_time": "Monday morning",
    "setting_atmosphere": "Noisy, expectant.",
    "context_text": "You left your notebook on the desk ...",
    "trigger_sender": "Classmate",
    "trigger_message": "Listen to what's written here!",
    "action_required": "Decide what you say.",
    "note": "Entered from the workshop notes.",
}


class ScreeningInputSerializer(SerializerTextRules, serializers.Serializer):
    decision = serializers.ChoiceField(choices=ScreeningDecision.Decision.choices)
    logically_consistent = serializers.BooleanField(default=False)
    psychologically_plausible = serializers.BooleanField(default=False)
    character_agnostic = serializers.BooleanField(default=False)
    note = serializers.CharField(
        max_length=NOTE, required=False, allow_blank=True, help_text="Required to flag."
    )


class ReviewerWriteApi(ScenarioReadApi):
    allowed_roles = (Role.SCENARIO_REVIEWER,)


def _fresh_page(request, scenario_id):
    """The caller's view of the review (404 if unknown), after the If-Match check."""
    page = selectors.scenario_review_page(scenario_id=scenario_id, user=request.user)
    require_fresh(request, data_etag(ScenarioReviewPageSerializer(page).data))
    return page


def _flat(body: dict, key: str) -> dict:
    """The page's form fields from the API's nested ``{key: {dimension: value}}``."""
    nested = body.get(key) or {}
    if not isinstance(nested, dict):
        raise ParseError({key: ["Send an object of dimension: value."]})
    return {**nested, "note": body.get("note", "")}


def _refused(refused: ActionRefused, *, final: bool = False) -> Response:
    """The page's refusal in the API's words: the form's errors; the service's message as
    a 400, or a 409 when the submit differs from a decision already recorded."""
    if refused.cause is None:
        return form_error_response(refused.form)
    return conflict(refused.cause) if final else error_response(refused.cause)


def _page_answer(request, scenario_id, code=status.HTTP_201_CREATED) -> Response:
    return answer(review_page_data(request, scenario_id), code=code)


class ScenarioCreateApi(ReviewerWriteApi):
    @extend_schema(
        summary="Enter a scenario by hand",
        description=(
            "The four-component schema of the page's form; the age must lie in the "
            "life-stage bin. The scenario gets a programmatic id and awaits pass 1."
        ),
        request=ScenarioContentSerializer,
        responses={201: ScenarioReviewPageSerializer, 400: ERROR, 403: ERROR},
        examples=[OpenApiExample("A scenario", value=CONTENT_EXAMPLE, request_only=True)],
    )
    def post(self, request):
        form = ScenarioContentForm(data=request_body(request), action="", submit_label="")
        try:
            scenario = actions.scenario_create(form, user=request.user)
        except ActionRefused as refused:
            return _refused(refused)
        return _page_answer(request, scenario.scenario_id)


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
        examples=[
            OpenApiExample(
                "Approve",
                value={
                    "decision": "approve",
                    "logically_consistent": True,
                    "psychologically_plausible": True,
                    "character_agnostic": True,
                    "note": "",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, scenario_id):
        page = _fresh_page(request, scenario_id)
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
                return _page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_screen(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return _refused(refused, final=mine is not None)
        return _page_answer(request, scenario_id)


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
        examples=[
            OpenApiExample(
                "A revision",
                value={
                    "context_text": "You left your notebook on the desk before recess.",
                    "note": "Removes the age anchor the flag names.",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, scenario_id):
        page = _fresh_page(request, scenario_id)
        body = request_body(request)
        current = page.version.content() if page.version else {}
        data = {**current, **{k: body[k] for k in body}}
        form = ScenarioContentForm(data=data, action="", submit_label="")
        try:
            actions.scenario_revise(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return _refused(refused)
        return _page_answer(request, scenario_id)


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
        examples=[
            OpenApiExample(
                "Ratings", value={"scores": SCORES_EXAMPLE, "note": ""}, request_only=True
            )
        ],
    )
    def post(self, request, scenario_id):
        page = _fresh_page(request, scenario_id)
        form = DiamondsRatingForm(
            data=_flat(request_body(request), "scores"), scenario_id=scenario_id
        )
        validated(form)
        own = page.own_rating
        if own is not None and own.scores() == form.scores():
            return _page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_rate(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return _refused(refused, final=own is not None)
        return _page_answer(request, scenario_id)


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
        examples=[
            OpenApiExample(
                "A proposal",
                value={"agreed": {"adversity": 5, "deception": 3}, "note": "Small loss."},
                request_only=True,
            )
        ],
    )
    def post(self, request, scenario_id):
        page = _fresh_page(request, scenario_id)
        body = request_body(request)
        form = ReassessmentForm(
            data=_flat(body, "agreed"), scenario_id=scenario_id, dimensions=_split(page)
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
            return _refused(refused)
        return _page_answer(request, scenario_id)


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
        examples=[
            OpenApiExample(
                "Confirm",
                value={"proposal": 3, "agreed": {"adversity": 5, "deception": 3}},
                request_only=True,
            )
        ],
    )
    def post(self, request, scenario_id):
        page = _fresh_page(request, scenario_id)
        body = request_body(request)
        confirmed = page.confirmed_proposal
        split = _split(page) or (list(confirmed.values) if confirmed else [])
        data = {**_flat(body, "agreed"), "proposal": body.get("proposal")}
        data["note"] = body.get("note") or ""
        form = ReassessmentConfirmForm(data=data, scenario_id=scenario_id, dimensions=split)
        validated(form)
        if confirmed is not None and confirmed.pk == form.cleaned_data["proposal"]:
            if confirmed.values == form.agreed():
                return _page_answer(request, scenario_id, code=status.HTTP_200_OK)
        try:
            actions.scenario_reassess_confirm(form, user=request.user, scenario_id=scenario_id)
        except ActionRefused as refused:
            return _refused(refused)
        return _page_answer(request, scenario_id)
