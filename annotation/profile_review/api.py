"""Profile review over REST (/api/review/): the annotators' side (the queue, your review,
your change requests). The senior expert's side is in ``api_senior``. Thin: validate
with the page's form, call the page's service, serialize. The blinding of the pages holds
here too: every read goes through the same selectors. ``ERROR``, ``error_response``,
``not_found``, ``request_body``, ``data_etag`` and ``conflict`` serve scenario review's
API too."""

import json

from django.http import Http404
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.profile_review import selectors, services
from annotation.profile_review.forms import ChangeRequestForm, ProfileReviewForm
from annotation.profile_review.models import (
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_CHOICES,
    CriterionJudgement,
    Recommendation,
    ReviewError,
)
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.api import (
    IF_MATCH,
    ListFilter,
    etag,
    form_error_response,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules

# --- Serializers --------------------------------------------------------------------------


class ChangeRequestSerializer(SerializerTextRules, serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    field = serializers.ChoiceField(choices=PROFILE_FIELD_CHOICES)
    passage = serializers.CharField(max_length=LIMITS["passage"])
    concern = serializers.CharField(max_length=LIMITS["concern"])
    suggested_correction = serializers.CharField(max_length=LIMITS["suggested_correction"])
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


class OutcomeRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    count = serializers.IntegerField()
    percent = serializers.FloatField(allow_null=True)
    characters = serializers.ListField(child=serializers.CharField())


class OutcomeTableSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    rows = OutcomeRowSerializer(many=True)


# --- Shared helpers -----------------------------------------------------------------------

ERROR = inline_serializer(
    "ReviewErrorResponse",
    {
        "detail": serializers.ListField(child=serializers.CharField()),
        "fields": serializers.DictField(
            child=serializers.ListField(child=serializers.CharField()), required=False
        ),
    },
)
CONFLICT = inline_serializer("ReviewConflictResponse", {"detail": serializers.CharField()})


def error_response(error: ReviewError) -> Response:
    """A ``ReviewError`` as a 400 response (``ERROR`` documents its shape)."""
    return Response({"detail": error.messages}, status=status.HTTP_400_BAD_REQUEST)


def conflict(error: ReviewError | str) -> Response:
    """409: a different submit on a record that is already final; the service's words."""
    text = error if isinstance(error, str) else " ".join(error.messages)
    return Response({"detail": text}, status=status.HTTP_409_CONFLICT)


def not_found(call):
    """``call()``, with a selector's ``Http404`` turned into the API's 404."""
    try:
        return call()
    except Http404 as missing:
        raise NotFound(str(missing)) from None


def request_body(request) -> dict:
    """The request's body as a dict (a JSON object or form fields)."""
    if not hasattr(request.data, "get"):
        raise ParseError("Send a JSON object.")
    return request.data


def data_etag(data) -> str:
    """The ETag of a record as the caller reads it: any change to what they see
    changes it."""
    return etag(json.dumps(data, sort_keys=True, default=str))


def answer(data, *, code=status.HTTP_200_OK) -> Response:
    """``data`` with its ETag."""
    return with_etag(Response(data, status=code), data_etag(data))


# --- Views --------------------------------------------------------------------------------


class ProfileReviewApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR, Role.ARBITRATOR, Role.ADMIN)


class AnnotatorApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.PRIMARY_ANNOTATOR,)


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
                            "character": "CHAR_01",
                            "latest_version": 1,
                            "state": "reviewing",
                            "your_review": "draft",
                        }
                    ],
                },
            )
        ],
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


REVIEW_EXAMPLE = {
    "recommendation": "local_revision",
    "criteria": {
        "trait_alignment": "meets",
        "internal_coherence": "meets",
        "occupational_plausibility": "meets",
        "behavioral_specificity": "concern",
        "interpretive_restraint": "meets",
    },
    "explanation": "One pattern is too categorical.",
    "unresolved_concern": "",
    "missing_information": "",
    "submit": True,
}


def _review_page(request, key):
    return not_found(lambda: selectors.profile_review_page(character_key=key, user=request.user))


def _page_data(request, key) -> dict:
    return ProfileReviewPageSerializer(_review_page(request, key)).data


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
        return answer(_page_data(request, key))

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
        examples=[OpenApiExample("Submit a review", value=REVIEW_EXAMPLE, request_only=True)],
    )
    def post(self, request, key):
        page = _review_page(request, key)
        require_fresh(request, data_etag(ProfileReviewPageSerializer(page).data))
        body = request_body(request)
        criteria = body.get("criteria") or {}
        if not isinstance(criteria, dict):
            raise ParseError({"criteria": ["Send the criteria as an object."]})
        form = ProfileReviewForm(data={**criteria, **body}, character_key=key)
        if not form.is_valid():
            return form_error_response(form)
        submit = serializers.BooleanField().to_internal_value(body.get("submit", False))
        own = page.own_review
        if own is not None and own.is_submitted and page.case is not None:
            if submit and _same_review(own, form.cleaned_data, form.criteria()):
                return answer(_page_data(request, key))
        extra = {k: v for k, v in criteria.items() if k not in PROFILE_CRITERIA_FIELDS}
        try:
            services.profile_review_save(
                character_key=key,
                reviewer=request.user,
                recommendation=form.cleaned_data["recommendation"],
                criteria={**form.criteria(), **extra},
                explanation=form.cleaned_data["explanation"],
                unresolved_concern=form.cleaned_data["unresolved_concern"],
                missing_information=form.cleaned_data["missing_information"],
                submit=submit,
            )
        except ReviewError as error:
            if own is not None and own.is_submitted:
                return conflict(error)
            return error_response(error)
        code = status.HTTP_201_CREATED if submit else status.HTTP_200_OK
        return answer(_page_data(request, key), code=code)


CHANGE_REQUEST_EXAMPLE = {
    "field": "description",
    "passage": "reads every situation",
    "concern": "Too categorical.",
    "suggested_correction": "Say 'tends to read'.",
}


class ChangeRequestCreateApi(AnnotatorApi):
    @extend_schema(
        summary="Add a field-level change request to your review",
        description=(
            "The passage must occur in the named field of the version under review. "
            "Only while your review is a draft and the round is open."
        ),
        parameters=[IF_MATCH],
        request=ChangeRequestSerializer,
        responses={201: ChangeRequestSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 412: ERROR},
        examples=[
            OpenApiExample("A change request", value=CHANGE_REQUEST_EXAMPLE, request_only=True)
        ],
    )
    def post(self, request, key):
        require_fresh(request, data_etag(_page_data(request, key)))
        form = ChangeRequestForm(data=request_body(request), character_key=key)
        if not form.is_valid():
            return form_error_response(form)
        try:
            created = services.change_request_add(
                character_key=key, reviewer=request.user, **form.cleaned_data
            )
        except ReviewError as error:
            return error_response(error)
        return Response(ChangeRequestSerializer(created).data, status=status.HTTP_201_CREATED)


class ChangeRequestWithdrawApi(AnnotatorApi):
    @extend_schema(
        summary="Withdraw one of your change requests",
        description=(
            "Only your own request, while your review is a draft and the round is open. "
            "Answers your review as it now stands. Another person's request is a 404."
        ),
        parameters=[IF_MATCH],
        request=None,
        responses={
            200: ProfileReviewPageSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
    )
    def post(self, request, key, id):
        page = _review_page(request, key)
        if not any(cr.pk == id for cr in page.own_requests):
            raise NotFound("You have no such change request on this profile.")
        require_fresh(request, data_etag(ProfileReviewPageSerializer(page).data))
        try:
            services.change_request_withdraw(request_id=id, reviewer=request.user)
        except ReviewError as error:
            return error_response(error)
        return answer(_page_data(request, key))


class ProfileOutcomesApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ARBITRATOR, Role.ADMIN)

    @extend_schema(
        summary="Initial profile review outcomes, per profile and overall",
        description="Each profile by its reviewers' initial recommendations.",
        responses=OutcomeTableSerializer,
        examples=[
            OpenApiExample(
                "Outcomes",
                response_only=True,
                value={
                    "total": 1,
                    "rows": [
                        {
                            "key": "accepted",
                            "label": "Accepted as-is by all reviewers",
                            "count": 1,
                            "percent": 100.0,
                            "characters": ["CHAR_01"],
                        }
                    ],
                },
            )
        ],
    )
    def get(self, request):
        return Response(OutcomeTableSerializer(selectors.profile_outcome_table()).data)
