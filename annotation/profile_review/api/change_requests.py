"""Change requests over REST (/api/review/change-requests/): an annotator adds one or
withdraws their own; the senior expert resolves one.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from annotation.profile_review import actions
from annotation.profile_review.forms import ChangeRequestForm, ChangeRequestResolveForm
from annotation.profile_review.models import ChangeRequest
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.actions import ActionRefused, validated
from core.api import IF_MATCH, require_fresh
from core.text_rules import SerializerTextRules

from . import examples
from .adjudications import adjudication_data
from .common import (
    CONFLICT,
    ERROR,
    AnnotatorApi,
    SeniorApi,
    answer,
    conflict,
    data_etag,
    refused_answer,
    request_body,
)
from .profiles import page_data, review_page
from .serializers import ChangeRequestSerializer, ProfileReviewPageSerializer


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
        examples=examples.CHANGE_REQUEST_CREATE_POST,
    )
    def post(self, request, key):
        require_fresh(request, data_etag(page_data(request, key)))
        form = ChangeRequestForm(data=request_body(request), character_key=key)
        try:
            created = actions.change_request_add(form, user=request.user, character_key=key)
        except ActionRefused as refused:
            return refused_answer(refused)
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
        page = review_page(request, key)
        if not any(cr.pk == id for cr in page.own_requests):
            raise NotFound("You have no such change request on this profile.")
        require_fresh(request, data_etag(ProfileReviewPageSerializer(page).data))
        try:
            actions.change_request_withdraw(user=request.user, request_id=id)
        except ActionRefused as refused:
            return refused_answer(refused)
        return answer(page_data(request, key))


class ResolveInputSerializer(SerializerTextRules, serializers.Serializer):
    status = serializers.ChoiceField(
        choices=[ChangeRequest.Status.ACCEPTED, ChangeRequest.Status.REJECTED]
    )
    reason = serializers.CharField(
        max_length=LIMITS["reason"],
        required=False,
        allow_blank=True,
        help_text="Required to reject.",
    )


class ResolvedRequestSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    field = serializers.CharField()
    status = serializers.CharField()
    resolution_reason = serializers.CharField()
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True)
    resolved_in_version = serializers.IntegerField(
        source="resolved_in_version.number", allow_null=True
    )


class ChangeRequestResolveApi(SeniorApi):
    @extend_schema(
        summary="Accept or reject one change request",
        description=(
            "A rejection needs a reason. Resolving it the same way again answers 200 "
            "with the record; resolving it differently once resolved answers 409."
        ),
        parameters=[IF_MATCH],
        request=ResolveInputSerializer,
        responses={
            200: ResolvedRequestSerializer,
            201: ResolvedRequestSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: CONFLICT,
            412: ERROR,
        },
        examples=examples.CHANGE_REQUEST_RESOLVE_POST,
    )
    def post(self, request, key, id):
        found = (
            ChangeRequest.objects.select_related("resolved_by", "resolved_in_version")
            .filter(pk=id, review__case__character__key=key, review__submitted_at__isnull=False)
            .first()
        )
        if found is None:
            raise NotFound("No such change request on this profile.")
        require_fresh(request, data_etag(adjudication_data(key)))
        form = ChangeRequestResolveForm(
            data=request_body(request), character_key=key, request_id=id, prefix=None
        )
        try:
            validated(form)
        except ActionRefused as refused:
            return refused_answer(refused)
        wanted, reason = form.cleaned_data["status"], form.cleaned_data["reason"].strip()
        if found.status != ChangeRequest.Status.OPEN:
            if found.status == wanted and found.resolution_reason == reason:
                return Response(ResolvedRequestSerializer(found).data)
        try:
            resolved = actions.change_request_resolve(form, user=request.user, request_id=id)
        except ActionRefused as refused:
            if found.status != ChangeRequest.Status.OPEN:
                return conflict(refused.cause)
            return refused_answer(refused)
        return Response(ResolvedRequestSerializer(resolved).data, status=status.HTTP_201_CREATED)
