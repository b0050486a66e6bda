"""REST endpoint of the comparison judgment (annotators), under /api/compare/ in the
``comparison-api`` namespace: submitting routes the pair once its three annotators have,
so it lives here, above ``annotation.comparison``, like the page's form.

!!! BLINDING !!!  A judgment is the annotator's own, in letters: never the candidate it
maps to, nor another annotator's judgment."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.consensus import actions
from annotation.comparison.api import judgment_tag, own_page
from annotation.comparison.forms import ComparisonJudgmentForm
from annotation.comparison.models import COMPARISON_LETTERS
from annotation.comparison.services import check_judgment
from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    require_fresh,
    text_rules_response,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import NOTE, SerializerTextRules

ROUTED = "This pair has been routed; your judgment can no longer change."


def _form_choices(name: str) -> list:
    return [
        (value, label) for value, label in ComparisonJudgmentForm.base_fields[name].choices if value
    ]


def _form_limit(name: str) -> int:
    """The page form's limit of a text field (issue #24: one number per field)."""
    return ComparisonJudgmentForm.base_fields[name].max_length or NOTE


class JudgmentSerializer(SerializerTextRules, serializers.Serializer):
    # The page's words for each text (issue #33): its form's labels.
    text_labels = {
        n: str(f.label) for n, f in ComparisonJudgmentForm.base_fields.items() if f.label
    }
    suitability = serializers.ChoiceField(choices=_form_choices("suitability"))
    suitability_reason = serializers.CharField(
        allow_blank=True, required=False, max_length=_form_limit("suitability_reason")
    )
    persona_consistency_note = serializers.CharField(
        allow_blank=True, required=False, max_length=_form_limit("persona_consistency_note")
    )
    memory_grounding_note = serializers.CharField(
        allow_blank=True, required=False, max_length=_form_limit("memory_grounding_note")
    )
    situational_fit_note = serializers.CharField(
        allow_blank=True, required=False, max_length=_form_limit("situational_fit_note")
    )
    psychological_plausibility_note = serializers.CharField(
        allow_blank=True,
        required=False,
        max_length=_form_limit("psychological_plausibility_note"),
    )
    selected_letter = serializers.ChoiceField(choices=COMPARISON_LETTERS)
    rating = serializers.ChoiceField(choices=_form_choices("rating"))
    selection_rationale = serializers.CharField(max_length=_form_limit("selection_rationale"))
    revision_guidance = serializers.CharField(
        allow_blank=True, required=False, max_length=_form_limit("revision_guidance")
    )


class SubmittedJudgmentSerializer(JudgmentSerializer):
    assignment = serializers.CharField()
    version = serializers.IntegerField()
    submitted_at = serializers.DateTimeField()
    final = serializers.BooleanField(help_text="The pair is routed: the judgment is final.")


SUBMIT_EXAMPLE = {
    "suitability": "suitable",
    "selected_letter": "B",
    "rating": "partial",
    "selection_rationale": "The decision follows from the activated memories.",
    "revision_guidance": "Name the friend the character calls, as memory 3 suggests.",
}


def judgment_body(page, judgment, *, final: bool) -> dict:
    return {
        **judgment.content(),
        "assignment": page.public_id,
        "version": judgment.version,
        "submitted_at": judgment.submitted_at,
        "final": final,
    }


def _answer(request, assignment, code):
    page = own_page(request, assignment)
    body = judgment_body(page, page.judgment, final=not page.is_open)
    data = SubmittedJudgmentSerializer(body).data
    return with_etag(Response(data, status=code), judgment_tag(page))


class ComparisonJudgmentApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_judgment",
        summary="Your submitted judgment of a comparison",
        description="Your judgment in letters, its version, and whether it is final (the "
        "pair is routed). 404 before you submit, or for an assignment not yours.",
        responses={200: SubmittedJudgmentSerializer, 404: ERROR},
        examples=[
            OpenApiExample(
                "A judgment",
                value={
                    **SUBMIT_EXAMPLE,
                    "suitability_reason": "",
                    "persona_consistency_note": "",
                    "memory_grounding_note": "",
                    "situational_fit_note": "",
                    "psychological_plausibility_note": "",
                    "assignment": "8f7d0c1e-4a55-4c57-9f4e-0d1b5c2f7a10",
                    "version": 1,
                    "submitted_at": "2026-12-05T09:20:00Z",
                    "final": False,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, assignment):
        page = own_page(request, assignment)
        if page.judgment is None:
            return Response(
                {"detail": "You have not submitted a judgment for this comparison yet."},
                status=status.HTTP_404_NOT_FOUND,
            )
        return _answer(request, assignment, status.HTTP_200_OK)

    @extend_schema(
        operation_id="compare_judgment_submit",
        summary="Submit (or revise) your judgment",
        description="The Expert Annotation Guideline's form (App. D.2), checked as the page "
        "checks it. 201 for your first submit; 200 for the same submit again or for a "
        "revision while the pair is open (a new version). The pair is routed once its three "
        "annotators have submitted: then the judgment is final, the same submit still "
        "answers 200 and a different one 409. 412 when If-Match names an older version.",
        parameters=[IF_MATCH],
        request=JudgmentSerializer,
        responses={
            200: SubmittedJudgmentSerializer,
            201: SubmittedJudgmentSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: OpenApiResponse(ERROR, description="The pair is routed: the judgment is final."),
            412: ERROR,
        },
        examples=[
            OpenApiExample("Submit a judgment", value=SUBMIT_EXAMPLE, request_only=True),
        ],
    )
    def post(self, request, assignment):
        page = own_page(request, assignment)
        require_fresh(request, judgment_tag(page))
        # The text rules first (issue #24): an over-long or control-character text is
        # refused with the field named, whatever the form goes on to check.
        refused = text_rules_response(JudgmentSerializer, request.data)
        if refused is not None:
            return refused
        form = ComparisonJudgmentForm(data=request.data, public_id=page.public_id)
        validated(form)
        if page.judgment is not None and not page.is_open:
            if check_judgment(form.cleaned_data) == page.judgment.content():
                return _answer(request, assignment, status.HTTP_200_OK)
            return Response({"detail": ROUTED}, status=status.HTTP_409_CONFLICT)
        first = page.judgment is None
        actions.judgment_submit(form, user=request.user, page=page)
        return _answer(request, assignment, status.HTTP_201_CREATED if first else 200)
