"""REST endpoints of the blinded comparison (annotators), under /api/compare/: the queue
(paginated), one comparison and its draft. Submitting a judgment routes the pair, so it
is ``adjudication.consensus.api``'s (same namespace, composed by the site).

!!! BLINDING !!!  The serializers name letters and text only, never a candidate id,
family, model or run, nor another annotator's judgment."""

from django.http import Http404
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.comparison import selectors, services
from annotation.comparison.models import (
    COMPARISON_LETTERS,
    JUDGMENT_FIELDS,
    JUDGMENT_TEXT_LABELS,
    Rating,
    Suitability,
)
from annotation.comparison.models import JUDGMENT_TEXT_LIMITS as LIMITS
from core.api import (
    ERROR,
    IF_MATCH,
    ListFilter,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
    with_etag,
)
from core.roles import HasRole, Role
from core.text_rules import SerializerTextRules


class QueueRowSerializer(serializers.Serializer):
    assignment = serializers.CharField(source="public_id")
    character = serializers.CharField(source="character_key")
    scenario = serializers.CharField(source="scenario_id")
    batch = serializers.IntegerField()
    state = serializers.CharField()
    routed = serializers.BooleanField()


class BlindMemorySerializer(serializers.Serializer):
    memory_id = serializers.CharField()
    timeline = serializers.CharField()
    content_summary = serializers.CharField()


class BlindCandidateSerializer(serializers.Serializer):
    letter = serializers.CharField()
    summary = serializers.CharField()
    emotional_tone = serializers.CharField()
    core_reasoning = serializers.CharField()
    final_decision = serializers.CharField()
    memories = BlindMemorySerializer(many=True)


class ComparisonPageSerializer(serializers.Serializer):
    assignment = serializers.CharField(source="public_id")
    character = serializers.CharField(source="pair.character.key")
    scenario = serializers.CharField(source="scenario.scenario_id")
    is_open = serializers.BooleanField()
    candidates = BlindCandidateSerializer(many=True)
    submitted_letter = serializers.SerializerMethodField()
    submitted_rating = serializers.SerializerMethodField()
    version = serializers.IntegerField(source="versions")

    def get_submitted_letter(self, page) -> str:
        return page.judgment.selected_letter if page.judgment else ""

    def get_submitted_rating(self, page) -> str:
        return page.judgment.rating if page.judgment else ""


class DraftSerializer(SerializerTextRules, serializers.Serializer):
    """The form's input as typed: letters and text, every field a string."""

    text_labels = JUDGMENT_TEXT_LABELS  # the page's words for each text (issue #33)

    suitability = serializers.ChoiceField(
        choices=Suitability.choices, required=False, allow_blank=True
    )
    suitability_reason = serializers.CharField(
        max_length=LIMITS["suitability_reason"], required=False, allow_blank=True
    )
    persona_consistency_note = serializers.CharField(
        max_length=LIMITS["persona_consistency_note"], required=False, allow_blank=True
    )
    memory_grounding_note = serializers.CharField(
        max_length=LIMITS["memory_grounding_note"], required=False, allow_blank=True
    )
    situational_fit_note = serializers.CharField(
        max_length=LIMITS["situational_fit_note"], required=False, allow_blank=True
    )
    psychological_plausibility_note = serializers.CharField(
        max_length=LIMITS["psychological_plausibility_note"], required=False, allow_blank=True
    )
    selected_letter = serializers.ChoiceField(
        choices=COMPARISON_LETTERS, required=False, allow_blank=True
    )
    rating = serializers.ChoiceField(choices=Rating.choices, required=False, allow_blank=True)
    selection_rationale = serializers.CharField(
        max_length=LIMITS["selection_rationale"], required=False, allow_blank=True
    )
    revision_guidance = serializers.CharField(
        max_length=LIMITS["revision_guidance"], required=False, allow_blank=True
    )


class DraftResponseSerializer(serializers.Serializer):
    assignment = serializers.CharField()
    data = DraftSerializer()
    saved_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField()


QUEUE_FILTERS = [
    ListFilter(
        "state",
        "state",
        description="Your progress on the pair.",
        choices=("done", "in progress", "remaining"),
    ),
    ListFilter("batch", "batch", int, "Only this batch."),
    ListFilter("routed", "routed", bool, "Routed (closed) pairs only, or open ones only."),
    ListFilter("character", "character_key", description="Only this character key."),
]
QUEUE_ORDERINGS = {
    "batch": "batch",
    "character": "pair__character__key",
    "scenario": "pair__scenario__scenario_id",
}

QUEUE_EXAMPLE = OpenApiExample(
    "A queue",
    value={
        "count": 1,
        "next": None,
        "previous": None,
        "results": [
            {
                "assignment": "8f7d0c1e-4a55-4c57-9f4e-0d1b5c2f7a10",
                "character": "CHAR_07",
                "scenario": "S_0042",
                "batch": 1,
                "state": "remaining",
                "routed": False,
            }
        ],
    },
    response_only=True,
)
DRAFT_EXAMPLE = {
    "suitability": "suitable",
    "selected_letter": "B",
    "rating": "as_is",
    "selection_rationale": "The decision follows from the activated memories.",
}


class ComparisonQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_queue",
        summary="Your comparison queue",
        description="Your assignments in batch and pair order, paginated. Count your "
        "progress with ?state=done (or 'in progress', 'remaining'): the envelope's count.",
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses={200: paginated_schema(QueueRowSerializer), 400: ERROR},
        examples=[QUEUE_EXAMPLE],
    )
    def get(self, request):
        rows = selectors.comparison_queue(user=request.user).rows
        return list_response(
            request,
            self,
            rows,
            QueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
            # Filtered, ordered and paged in the database; only the page becomes rows.
            serialize=lambda page: (
                QueueRowSerializer([selectors.queue_row(a) for a in page], many=True).data
            ),
        )


def own_page(request, assignment) -> selectors.ComparisonPage:
    # The API lists the memories by their summary lines: their texts are not read.
    page = selectors.comparison_page(public_id=assignment, user=request.user, memory_texts=False)
    if page is None:
        raise Http404("This comparison is not assigned to you.")
    return page


class ComparisonPairApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_pair",
        summary="One blinded comparison: candidates by letter",
        description="The character, the scenario and the three candidates under your "
        "letters, with your submitted letter and rating once you submitted. Its ETag is the "
        "If-Match of a judgment submit. 404 for an assignment that is not yours.",
        responses={200: ComparisonPageSerializer, 404: ERROR},
        examples=[
            OpenApiExample(
                "A comparison",
                value={
                    "assignment": "8f7d0c1e-4a55-4c57-9f4e-0d1b5c2f7a10",
                    "character": "CHAR_07",
                    "scenario": "S_0042",
                    "is_open": True,
                    "candidates": [
                        {
                            "letter": "A",
                            "summary": "I remember the cold library and feel torn.",
                            "emotional_tone": "torn",
                            "core_reasoning": "",
                            "final_decision": "I stay behind and water the plants.",
                            "memories": [],
                        }
                    ],
                    "submitted_letter": "",
                    "submitted_rating": "",
                    "version": 0,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, assignment):
        page = own_page(request, assignment)
        return with_etag(Response(ComparisonPageSerializer(page).data), judgment_tag(page))


def judgment_tag(page: selectors.ComparisonPage) -> str:
    """The version of the annotator's judgment: the If-Match of a submit."""
    return etag("comparison-judgment", page.public_id, page.versions, page.pair.status)


def draft_tag(page: selectors.ComparisonPage) -> str:
    return etag(
        "comparison-draft",
        page.public_id,
        page.draft_saved_at.isoformat() if page.draft_saved_at else "",
        page.versions,
        page.pair.status,
    )


def _draft_body(page) -> dict:
    return {
        "assignment": page.public_id,
        "data": {f: page.draft[f] for f in JUDGMENT_FIELDS if f in page.draft},
        "saved_at": page.draft_saved_at,
        "status": page.autosave_status,
    }


class ComparisonDraftApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.PRIMARY_ANNOTATOR]

    @extend_schema(
        operation_id="compare_draft",
        summary="Your draft of a comparison",
        description="The form's input as last saved (letters and text, as typed), with an "
        "ETag to send back in If-Match when you save.",
        responses={200: DraftResponseSerializer, 404: ERROR},
        examples=[
            OpenApiExample(
                "A draft",
                value={
                    "assignment": "8f7d0c1e-4a55-4c57-9f4e-0d1b5c2f7a10",
                    "data": DRAFT_EXAMPLE,
                    "saved_at": "2026-12-05T09:14:03Z",
                    "status": "Draft saved at 09:14.",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, assignment):
        page = own_page(request, assignment)
        return with_etag(Response(DraftResponseSerializer(_draft_body(page)).data), draft_tag(page))

    @extend_schema(
        operation_id="compare_draft_save",
        summary="Save your draft of a comparison",
        description="Replaces the draft with the fields sent (a draft is not checked: "
        "submitting is). 412 when If-Match names an older draft; 400 once the pair is "
        "routed.",
        parameters=[IF_MATCH],
        request=DraftSerializer,
        responses={200: DraftResponseSerializer, 400: ERROR, 404: ERROR, 412: ERROR},
        examples=[OpenApiExample("Save a draft", value=DRAFT_EXAMPLE, request_only=True)],
    )
    def put(self, request, assignment):
        page = own_page(request, assignment)
        require_fresh(request, draft_tag(page))
        if not isinstance(request.data, dict):
            raise ParseError("Send the draft as a JSON object of the form's fields.")
        data = {f: request.data[f] for f in JUDGMENT_FIELDS if f in request.data}
        typed = DraftSerializer(data=data, partial=True)
        if not typed.is_valid():
            fields = {name: [str(m) for m in errors] for name, errors in typed.errors.items()}
            detail = [m for errors in fields.values() for m in errors]
            return Response({"detail": detail, "fields": fields}, status=400)
        services.comparison_draft_save(public_id=page.public_id, annotator=request.user, data=data)
        page = own_page(request, assignment)
        return with_etag(Response(DraftResponseSerializer(_draft_body(page)).data), draft_tag(page))
