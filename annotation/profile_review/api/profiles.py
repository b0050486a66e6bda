"""Profiles under review over REST (/api/review/profiles/): the queue, and the version
under review with your own review (read, draft, submit). The blinding of the pages holds
here too: every read goes through the same selectors.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError

from annotation.profile_review import actions, selectors
from annotation.profile_review.forms import ProfileReviewForm
from annotation.profile_review.models import (
    PROFILE_CRITERIA_FIELDS,
    CriterionJudgement,
    Recommendation,
)
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.actions import ActionRefused, validated
from core.api import (
    IF_MATCH,
    ListFilter,
    form_error_response,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
)
from core.text_rules import SerializerTextRules

from . import examples
from .common import (
    CONFLICT,
    ERROR,
    AnnotatorApi,
    ProfileReviewApi,
    answer,
    conflict,
    data_etag,
    error_response,
    not_found,
    request_body,
)
from .serializers import ProfileQueueRowSerializer, ProfileReviewPageSerializer


class ProfileReviewInputSerializer(SerializerTextRules, serializers.Serializer):
    recommendation = serializers.ChoiceField(
        choices=Recommendation.choices, required=False, allow_blank=True
    )
    criteria = serializers.DictField(
        child=serializers.ChoiceField(choices=CriterionJudgement.choices, allow_blank=True),
        required=False,
        help_text=f"Keys: {', '.join(PROFILE_CRITERIA_FIELDS)}.",
    )
    explanation = serializers.CharField(
        max_length=LIMITS["explanation"], required=False, allow_blank=True, default=""
    )
    unresolved_concern = serializers.CharField(
        max_length=LIMITS["unresolved_concern"], required=False, allow_blank=True, default=""
    )
    missing_information = serializers.CharField(
        max_length=LIMITS["missing_information"], required=False, allow_blank=True, default=""
    )
    submit = serializers.BooleanField(default=False)


QUEUE_FILTERS = [
    ListFilter(
        "state",
        "state",
        description="The profile's review state.",
        choices=("no profile", "to review", "reviewing", "adjudicating", "frozen"),
    ),
    ListFilter("character", "character.key", description="One character key."),
]
QUEUE_ORDERINGS = {"character": "character.key", "state": "state"}


class ProfileQueueApi(ProfileReviewApi):
    @extend_schema(
        operation_id="review_profiles_list",
        summary="Characters and their profile-review state",
        description=(
            "Every character with its latest profile version and review state; for a "
            "primary annotator, whether their own review is a draft or submitted. Never "
            "another annotator's review."
        ),
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses=paginated_schema(ProfileQueueRowSerializer),
        examples=examples.PROFILE_QUEUE_GET,
    )
    def get(self, request):
        rows = selectors.profile_review_queue(user=request.user)
        return list_response(
            request,
            self,
            rows,
            ProfileQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )


def review_page(request, key):
    return not_found(lambda: selectors.profile_review_page(character_key=key, user=request.user))


def page_data(request, key) -> dict:
    return ProfileReviewPageSerializer(review_page(request, key)).data


def _same_review(review, data: dict, criteria: dict) -> bool:
    """Whether a submitted review already holds what ``data`` submits."""
    return (
        review.recommendation == (data.get("recommendation") or "")
        and all(getattr(review, n) == (criteria.get(n) or "") for n in PROFILE_CRITERIA_FIELDS)
        and all(
            getattr(review, n) == str(data.get(n) or "").strip()
            for n in ("explanation", "unresolved_concern", "missing_information")
        )
    )


class ProfileReviewDetailApi(AnnotatorApi):
    @extend_schema(
        summary="The version under review and your own review",
        description=(
            "Other annotators' reviews appear only once the profile is frozen. The "
            "`ETag` header names this state; send it back in `If-Match` when you save."
        ),
        responses={200: ProfileReviewPageSerializer, 404: ERROR},
    )
    def get(self, request, key):
        return answer(page_data(request, key))

    @extend_schema(
        summary="Save (or submit) your review",
        description=(
            "`submit: false` saves a draft (200); `submit: true` checks the review is "
            "complete and submits it (201), as the page's “Submit review”. Submitting the "
            "same review again answers 200 with it; any other change to a submitted review "
            "answers 409. Messages are the page's."
        ),
        parameters=[IF_MATCH],
        request=ProfileReviewInputSerializer,
        responses={
            200: ProfileReviewPageSerializer,
            201: ProfileReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.PROFILE_REVIEW_DETAIL_POST,
    )
    def post(self, request, key):
        page = review_page(request, key)
        require_fresh(request, data_etag(ProfileReviewPageSerializer(page).data))
        body = request_body(request)
        criteria = body.get("criteria") or {}
        if not isinstance(criteria, dict):
            raise ParseError({"criteria": ["Send the criteria as an object."]})
        form = ProfileReviewForm(data={**criteria, **body}, character_key=key)
        try:
            validated(form)
        except ActionRefused as refused:
            return form_error_response(refused.form)
        submit = serializers.BooleanField().to_internal_value(body.get("submit", False))
        own = page.own_review
        if own is not None and own.is_submitted and page.case is not None:
            if submit and _same_review(own, form.cleaned_data, form.criteria()):
                return answer(page_data(request, key))
        extra = {k: v for k, v in criteria.items() if k not in PROFILE_CRITERIA_FIELDS}
        try:
            actions.profile_review_save(
                form, user=request.user, character_key=key, submit=submit, unoffered=extra
            )
        except ActionRefused as refused:
            if own is not None and own.is_submitted:
                return conflict(refused.cause)
            return error_response(refused.cause)
        code = status.HTTP_201_CREATED if submit else status.HTTP_200_OK
        return answer(page_data(request, key), code=code)
