"""Arbitration pairs over REST (/api/arbitration/pairs/): the escalated and decided pairs
(paginated), and one pair as the arbitrator's page shows it.

!!! BLINDING !!!  Candidates are numbered as on the page, never by id; a family is named
only where the page names it (``AdjudicationSettings.show_family_to_arbitrator``).
"""

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.arbitration import selectors
from annotation.comparison.models import ComparisonPair
from core.api import (
    ERROR,
    ListFilter,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    with_etag,
)
from core.conflicts import arbitration_conflict
from core.roles import HasRole, Role, user_roles

from . import examples

LISTED_STATUSES = (ComparisonPair.Status.ESCALATED, *selectors.DECIDED_STATUSES)


class PairRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="character.key")
    scenario = serializers.CharField(source="scenario.scenario_id")
    round = serializers.IntegerField()
    status = serializers.CharField()
    escalation_reasons = serializers.ListField(child=serializers.CharField())
    routed_at = serializers.DateTimeField(allow_null=True)


PAIR_FILTERS = [
    ListFilter(
        "status",
        "status",
        description="escalated: the arbitration queue; adopted, resolved, discarded: decided.",
        choices=tuple(str(s) for s in LISTED_STATUSES),
    ),
    ListFilter("character", "character__key", description="Only this character key."),
    ListFilter("scenario", "scenario__scenario_id", description="Only this scenario id."),
    ListFilter("round", "round", int, "Only this round."),
]
PAIR_ORDERINGS = {
    "character": "character__key",
    "scenario": "scenario__scenario_id",
    "status": "status",
    "routed_at": "routed_at",
    "round": "round",
}


class ArbitrationPairListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ARBITRATOR, Role.ADMIN]

    @extend_schema(
        operation_id="arbitration_pairs",
        summary="Escalated and decided comparison pairs",
        description="The arbitration queue (?status=escalated) and the decided pairs "
        "(adopted unanimously, resolved, discarded), by character and scenario, paginated.",
        parameters=list_parameters(PAIR_FILTERS, PAIR_ORDERINGS),
        responses={200: paginated_schema(PairRowSerializer), 400: ERROR},
        examples=examples.ARBITRATION_PAIR_LIST_GET,
    )
    def get(self, request):
        rows = ComparisonPair.objects.filter(status__in=LISTED_STATUSES).select_related(
            "character", "scenario"
        )
        return list_response(
            request, self, rows, PairRowSerializer, filters=PAIR_FILTERS, orderings=PAIR_ORDERINGS
        )


class ArbiterMemorySerializer(serializers.Serializer):
    memory_id = serializers.CharField()
    content_summary = serializers.CharField()


class ArbiterCandidateSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    family = serializers.CharField(source="family_label", help_text="Empty unless shown.")
    summary = serializers.CharField(source="candidate.summary")
    emotional_tone = serializers.CharField(source="candidate.emotional_tone")
    core_reasoning = serializers.CharField(source="candidate.core_reasoning")
    final_decision = serializers.CharField(source="candidate.final_decision")
    memories = ArbiterMemorySerializer(many=True)
    chosen_by = serializers.ListField(child=serializers.CharField())


class ArbiterJudgmentSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="judgment.pk", help_text="For guidance_followed.")
    annotator = serializers.CharField(source="annotator.username")
    suitability = serializers.CharField(source="judgment.suitability")
    suitability_reason = serializers.CharField(source="judgment.suitability_reason")
    selected = serializers.IntegerField(source="number", help_text="A candidate number.")
    rating = serializers.CharField(source="judgment.rating")
    selection_rationale = serializers.CharField(source="judgment.selection_rationale")
    revision_guidance = serializers.CharField(source="judgment.revision_guidance")


class DecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    kind = serializers.CharField()
    arbitrator = serializers.CharField(source="arbitrator.username")
    candidate = serializers.SerializerMethodField(help_text="The candidate's number, if any.")
    reason = serializers.CharField()
    decided_at = serializers.DateTimeField()
    reopened_at = serializers.DateTimeField(allow_null=True)
    reopened_by = serializers.CharField(source="reopened_by.username", allow_null=True)
    reopen_reason = serializers.CharField()

    def get_candidate(self, decision) -> int | None:
        numbers = self.context.get("numbers", {})
        return numbers.get(decision.source_candidate_id)


class ReferenceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    decision_type = serializers.CharField()
    provenance = serializers.CharField()
    summary = serializers.CharField()
    emotional_tone = serializers.CharField()
    core_reasoning = serializers.CharField()
    final_decision = serializers.CharField()
    word_edit_rate = serializers.FloatField(allow_null=True)
    keyed_word_edit_rate = serializers.FloatField(allow_null=True)
    source_family = serializers.SerializerMethodField(help_text="Empty unless shown.")

    def get_source_family(self, reference) -> str:
        if not self.context.get("show_family"):
            return ""
        return reference.get_source_family_display() if reference.source_family else ""


class ArbitrationPairSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pair.pk")
    character = serializers.CharField(source="pair.character.key")
    scenario = serializers.CharField(source="pair.scenario.scenario_id")
    round = serializers.IntegerField(source="pair.round")
    status = serializers.CharField(source="pair.status")
    escalation_reasons = serializers.ListField(
        source="pair.escalation_reasons", child=serializers.CharField()
    )
    flagged = serializers.BooleanField()
    occupation = serializers.CharField(source="pair.profile_version.occupation")
    description = serializers.CharField(source="pair.profile_version.description")
    self_value_logic = serializers.CharField(source="pair.profile_version.self_value_logic")
    core_patterns = serializers.ListField(
        source="pair.profile_version.core_patterns", child=serializers.CharField()
    )
    scenario_description = serializers.CharField(source="pair.scenario.description_for_agent")
    trigger_sender = serializers.CharField(source="pair.scenario.trigger_sender")
    trigger_message = serializers.CharField(source="pair.scenario.trigger_message")
    candidates = ArbiterCandidateSerializer(many=True)
    judgments = ArbiterJudgmentSerializer(many=True)
    decision = DecisionSerializer(allow_null=True)
    history = DecisionSerializer(many=True)
    reference = ReferenceSerializer(source="decided_reference", allow_null=True)
    can_decide = serializers.SerializerMethodField()

    def get_can_decide(self, page) -> bool:
        return bool(self.context.get("can_decide"))


def pair_page(pair_id) -> selectors.ArbitrationPage:
    page = selectors.arbitration_page(pair_id=pair_id)
    if page is None:
        raise Http404("No such comparison pair.")
    return page


def pair_tag(page: selectors.ArbitrationPage) -> str:
    """The pair's version: its status, open decision and current reference."""
    return etag(
        "arbitration-pair",
        page.pair.pk,
        page.pair.status,
        page.decision.pk if page.decision else "",
        page.reference.pk if page.reference else "",
    )


def page_context(request, page) -> dict:
    # Nobody arbitrates a pair they judged, in any round (App. D.2, issue #24).
    return {
        "numbers": {c.candidate.pk: c.number for c in page.candidates},
        "show_family": page.show_family,
        "can_decide": Role.ARBITRATOR in user_roles(request.user)
        and page.pair.status == ComparisonPair.Status.ESCALATED
        and arbitration_conflict(page.pair, request.user) is None,
    }


def pair_response(request, page, code=200) -> Response:
    data = ArbitrationPairSerializer(page, context=page_context(request, page)).data
    return with_etag(Response(data, status=code), pair_tag(page))


class ArbitrationPairApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ARBITRATOR, Role.ADMIN]

    @extend_schema(
        operation_id="arbitration_pair",
        summary="One comparison pair as the arbitrator sees it",
        description="The character, the scenario, the candidates numbered 1-3 (the family "
        "only if the adjudication settings show it), the annotators' judgments by number, "
        "the open decision, the history and the reference it set. The ETag is the If-Match "
        "of a decision or a reopening.",
        responses={200: ArbitrationPairSerializer, 404: ERROR},
        examples=examples.ARBITRATION_PAIR_GET,
    )
    def get(self, request, pair_id):
        return pair_response(request, pair_page(pair_id))
