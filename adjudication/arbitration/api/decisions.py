"""A pair's decisions over REST (/api/arbitration/pairs/<id>/decision/ and .../reopen/):
the arbitrator's decision and the admin's reopening, through the same forms and services
as the page.

Idempotent: the first decision answers 201; the same decision sent again answers 200
with the same record; a different one on a decided pair answers 409.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.arbitration import actions, services
from adjudication.arbitration.forms import ReopenForm
from adjudication.arbitration.models import ArbitrationDecision
from core.actions import validated
from core.api import ERROR, IF_MATCH, require_fresh, with_etag
from core.roles import HasRole, Role
from core.text_rules import NAME, NOTE, TEXT, SerializerTextRules

from . import examples
from .pairs import DecisionSerializer, ReferenceSerializer, page_context, pair_page, pair_tag

TEXT_FIELDS = services.REFERENCE_TEXT_FIELDS


class DecisionRequestSerializer(SerializerTextRules, serializers.Serializer):
    kind = serializers.CharField(
        max_length=NAME, help_text="One of: " + ", ".join(ArbitrationDecision.Kind.values) + "."
    )
    candidate = serializers.IntegerField(
        required=False, allow_null=True, help_text="The candidate number (1-3) to adopt or edit."
    )
    summary = serializers.CharField(required=False, allow_blank=True, max_length=TEXT)
    emotional_tone = serializers.CharField(required=False, allow_blank=True, max_length=TEXT)
    core_reasoning = serializers.CharField(required=False, allow_blank=True, max_length=TEXT)
    final_decision = serializers.CharField(required=False, allow_blank=True, max_length=TEXT)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=NOTE)
    guidance_followed = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Judgment ids, on an edit."
    )
    guidance = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=services.REGENERATION_GUIDANCE_MAX_CHARS,
        help_text="Required to ask for regeneration.",
    )


class DecisionResponseSerializer(DecisionSerializer):
    pair = serializers.IntegerField(source="pair_id")
    pair_status = serializers.CharField(source="pair.status")
    reference = ReferenceSerializer(allow_null=True)
    warnings = serializers.SerializerMethodField()

    def get_warnings(self, decision) -> list[str]:
        return self.context.get("warnings", [])


class ReopenRequestSerializer(SerializerTextRules, serializers.Serializer):
    reason = serializers.CharField(max_length=NOTE)


def _decision_response(request, pair_id, decision_id, code, warnings=()):
    page = pair_page(pair_id)
    decision = next(d for d in page.history if d.pk == decision_id)
    context = page_context(request, page) | {"warnings": list(warnings)}
    data = DecisionResponseSerializer(decision, context=context).data
    return with_etag(Response(data, status=code), pair_tag(page))


def same_decision(decision, data: dict, *, user, number_of: dict) -> bool:
    """Whether ``data`` (the cleaned form) asks for the decision already recorded."""
    Kind = ArbitrationDecision.Kind
    if decision.kind != data["kind"] or decision.arbitrator_id != user.pk:
        return False
    if decision.kind == Kind.REGENERATE:
        return decision.reason == (data["guidance"] or "").strip()
    if decision.kind == Kind.DISCARDED:
        return decision.reason == (data["reason"] or "").strip()
    if decision.reason != data["reason"]:
        return False
    if decision.kind in (Kind.ADOPTED, Kind.EDITED):
        if number_of.get(decision.source_candidate_id) != data["candidate"]:
            return False
    if decision.kind in (Kind.EDITED, Kind.REWRITTEN):
        reference = decision.reference
        return all(getattr(reference, f) == (data[f] or "").strip() for f in TEXT_FIELDS)
    return True


class ArbitrationDecisionApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ARBITRATOR]

    @extend_schema(
        operation_id="arbitration_decide",
        summary="Decide an escalated pair",
        description="The arbitration form (App. D.2): adopt a candidate as-is, edit one "
        "(the annotators' guidance it follows in guidance_followed), rewrite from scratch, "
        "discard the pair (a reason is required) or ask for regeneration (guidance is "
        "required). Candidates are named by their number on the pair. 201 for the decision; "
        "200 for the same decision sent again; 409 for a different one on a decided pair; "
        "400 with the service's message when it refuses; 403 when you judged the pair (any "
        "round); 412 "
        "when If-Match names an older version of the pair.",
        parameters=[IF_MATCH],
        request=DecisionRequestSerializer,
        responses={
            200: DecisionResponseSerializer,
            201: DecisionResponseSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: OpenApiResponse(ERROR, description="The pair already has another decision."),
            412: ERROR,
        },
        examples=examples.ARBITRATION_DECISION_POST,
    )
    def post(self, request, pair_id):
        page = pair_page(pair_id)
        require_fresh(request, pair_tag(page))
        form = actions.arbitration_form(page, data=request.data)
        data = validated(form)
        if page.decision is not None:
            numbers = {c.candidate.pk: c.number for c in page.candidates}
            if same_decision(page.decision, data, user=request.user, number_of=numbers):
                return _decision_response(request, pair_id, page.decision.pk, status.HTTP_200_OK)
            return Response(
                {
                    "detail": f"{page.pair} already has a decision "
                    f"({page.decision.get_kind_display().lower()} by "
                    f"{page.decision.arbitrator.get_username()}); only an admin can reopen it."
                },
                status=status.HTTP_409_CONFLICT,
            )
        warnings = []
        decision = actions.arbitration_decide(
            form, user=request.user, page=page, on_unavailable=warnings.append
        )
        return _decision_response(
            request, pair_id, decision.pk, status.HTTP_201_CREATED, warnings=warnings
        )


class ArbitrationReopenApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ADMIN]

    @extend_schema(
        operation_id="arbitration_reopen",
        summary="Reopen a decision (admin)",
        description="The decision stays, marked reopened; its reference is withdrawn and "
        "the pair returns to the arbitration queue. 201 for the reopening; 200 for the same "
        "reopening sent again; 400 with the service's message when there is no decision to "
        "reopen; 412 when If-Match names an older version of the pair.",
        parameters=[IF_MATCH],
        request=ReopenRequestSerializer,
        responses={
            200: DecisionResponseSerializer,
            201: DecisionResponseSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples.ARBITRATION_REOPEN_POST,
    )
    def post(self, request, pair_id):
        page = pair_page(pair_id)
        require_fresh(request, pair_tag(page))
        form = ReopenForm(data=request.data, pair_id=pair_id)
        validated(form)
        reason = form.cleaned_data["reason"].strip()
        last = page.history[-1] if page.history else None
        if (
            page.decision is None
            and last is not None
            and last.reopened_by_id == request.user.pk
            and last.reopen_reason == reason
            and page.pair.status == "escalated"
        ):
            return _decision_response(request, pair_id, last.pk, status.HTTP_200_OK)
        decision = actions.arbitration_reopen(form, user=request.user, pair_id=pair_id)
        return _decision_response(request, pair_id, decision.pk, status.HTTP_201_CREATED)
