"""REST reads of MCQ item review and assembly, under /api/items/ (item reviewers:
arbitrators, admins). The writes are in ``api_writes``.

Reviewers see what the item page shows them: the key, the options' provenance, the
judge's assessments, checks and issues, the versions and decisions. Never the judge's
model or family (provenance: ``McqScreening.judge_family``/``judge_model``).
"""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.mcq import selectors as mcq_selectors
from adjudication.mcq.models import McqAssemblyRun, McqItem, McqScreening
from adjudication.mcq.views import revisable
from core.api import (
    ERROR,
    ListFilter,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    with_etag,
)
from core.roles import HasRole, Role


def item_etag(item: McqItem) -> str:
    """The item's version and status: a review action, a revision or a finished screening
    changes it."""
    return etag("mcq-item", item.pk, item.version, item.status)


# --- The queue ----------------------------------------------------------------------------


class ItemQueueRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    scenario = serializers.CharField(source="item.scenario.scenario_id")
    status = serializers.CharField(source="item.status")
    version = serializers.IntegerField(source="item.version")
    options = serializers.IntegerField(source="item.option_count")
    screening_outcome = serializers.CharField(source="screening.outcome", default=None)
    concerns = serializers.ListField(child=serializers.CharField())


QUEUE_FILTERS = [
    ListFilter(
        "status",
        "item.status",
        description="flagged or needs_completion (default: both).",
        choices=tuple(str(s) for s in mcq_selectors.REVIEW_QUEUE_STATUSES),
    ),
    ListFilter("character", "item.character.key", description="The target character's key."),
    ListFilter(
        "screening_outcome",
        "screening.outcome",
        description="The latest screening's outcome.",
        choices=tuple(McqScreening.Outcome.values),
    ),
]
QUEUE_ORDERINGS = {
    "question_id": "item.question_id",
    "status": "item.status",
    "version": "item.version",
    "character": "item.character.key",
}

QUEUE_EXAMPLE = {
    "count": 1,
    "next": None,
    "previous": None,
    "results": [
        {
            "id": 12,
            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
            "character": "CHAR_01",
            "scenario": "SCN_SCHOOL_AGE_1",
            "status": "flagged",
            "version": 1,
            "options": 4,
            "screening_outcome": "flagged",
            "concerns": ["R2"],
        }
    ],
}


class ItemReviewQueueApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        operation_id="items_queue_list",
        summary="MCQ items awaiting review",
        description="Flagged items and items needing completion, as the item queue page "
        "lists them, with the latest screening's outcome and the rules it did not pass.",
        parameters=list_parameters(QUEUE_FILTERS, QUEUE_ORDERINGS),
        responses={200: paginated_schema(ItemQueueRowSerializer), 400: ERROR, 403: ERROR},
        examples=[OpenApiExample("Queue", value=QUEUE_EXAMPLE, response_only=True)],
    )
    def get(self, request):
        rows = mcq_selectors.item_review_queue()
        return list_response(
            request,
            self,
            rows,
            ItemQueueRowSerializer,
            filters=QUEUE_FILTERS,
            orderings=QUEUE_ORDERINGS,
        )


# --- One item -----------------------------------------------------------------------------


class ItemOptionSerializer(serializers.Serializer):
    label = serializers.CharField()
    content = serializers.CharField()
    is_correct = serializers.BooleanField()
    is_generated = serializers.BooleanField()
    source_character = serializers.CharField()


class ItemScreeningSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    item_version = serializers.IntegerField(source="item_version.number")
    outcome = serializers.CharField()
    needs_human_review = serializers.BooleanField()
    attempts = serializers.IntegerField()
    attempt_errors = serializers.JSONField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ItemVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    origin = serializers.CharField()
    note = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", default=None)
    created_at = serializers.DateTimeField()


class ReviewDecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    item = serializers.IntegerField(source="item_id")
    action = serializers.CharField()
    item_version = serializers.IntegerField(source="item_version.number")
    result_version = serializers.IntegerField(
        source="result_version.number", default=None, allow_null=True
    )
    reviewer = serializers.CharField(source="reviewer.username")
    note = serializers.CharField()
    decided_at = serializers.DateTimeField()


class ReplacementReferenceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="character.key")
    content = serializers.CharField(source="final_decision")


class ItemDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    scenario = serializers.CharField(source="item.scenario.scenario_id")
    stage = serializers.CharField(source="item.stage")
    status = serializers.CharField(source="item.status")
    version = serializers.IntegerField(source="item.version")
    correct_answer = serializers.CharField(source="item.correct_answer")
    options = ItemOptionSerializer(many=True)
    screening = ItemScreeningSerializer(allow_null=True)
    checks = serializers.JSONField(help_text="The latest screening's rule checks.")
    issues = serializers.JSONField(help_text="The latest screening's issues.")
    assessments = serializers.JSONField(help_text="The judge's assessment per option label.")
    candidates = serializers.SerializerMethodField()
    versions = ItemVersionSerializer(many=True)
    decisions = ReviewDecisionSerializer(many=True)
    replacement_references = ReplacementReferenceSerializer(many=True)
    revisable = serializers.SerializerMethodField()

    def get_candidates(self, page) -> list[dict]:
        keep = ("character", "similarity_to_key", "relevance", "rejected", "selected")
        return [{k: c.get(k) for k in keep} for c in page.candidates]

    def get_revisable(self, page) -> bool:
        return revisable(page)


ITEM_EXAMPLE = {
    "id": 12,
    "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
    "character": "CHAR_01",
    "scenario": "SCN_SCHOOL_AGE_1",
    "stage": "school_age",
    "status": "flagged",
    "version": 1,
    "correct_answer": "B",
    "options": [
        {
            "label": "A",
            "content": "I go to the park with Mom.",
            "is_correct": False,
            "is_generated": False,
            "source_character": "CHAR_04",
        }
    ],
    "screening": {
        "id": 3,
        "item_version": 1,
        "outcome": "flagged",
        "needs_human_review": True,
        "attempts": 1,
        "attempt_errors": [],
        "finished_at": "2026-01-05T10:00:00Z",
    },
    "checks": [{"rule_id": "R2", "status": "flag", "comment": "...", "label": "..."}],
    "issues": [],
    "assessments": {},
    "candidates": [],
    "versions": [],
    "decisions": [],
    "replacement_references": [{"id": 40, "character": "CHAR_05", "content": "..."}],
    "revisable": True,
}


def review_page_or_404(item_id: int):
    page = mcq_selectors.item_review_page(item_id=item_id)
    if page is None:
        raise NotFound("No such MCQ item.")
    return page


class ItemDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = list(mcq_selectors.ITEM_REVIEWER_ROLES)

    @extend_schema(
        summary="One MCQ item as its review page shows it",
        description="Options with the key and their provenance, the latest screening's "
        "checks and issues, versions and review decisions. The ETag changes with the item's "
        "version and status; send it as If-Match with a review action.",
        responses={200: ItemDetailSerializer, 403: ERROR, 404: ERROR},
        examples=[OpenApiExample("Item", value=ITEM_EXAMPLE, response_only=True)],
    )
    def get(self, request, item_id: int):
        page = review_page_or_404(item_id)
        return with_etag(Response(ItemDetailSerializer(page).data), item_etag(page.item))


# --- Assembly runs ------------------------------------------------------------------------


class AssemblyRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    params = serializers.JSONField()
    seed = serializers.IntegerField()
    gate_override_reason = serializers.CharField()
    total = serializers.IntegerField()
    processed = serializers.IntegerField()
    assembled = serializers.IntegerField()
    needs_completion = serializers.IntegerField()
    percent = serializers.IntegerField()
    error = serializers.CharField()
    started_by = serializers.CharField(source="started_by.username", default=None)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class AssemblyRunDetailSerializer(AssemblyRunSerializer):
    keys = serializers.SerializerMethodField(help_text="Placed keys per option label.")

    def get_keys(self, run) -> dict:
        return mcq_selectors.run_key_distribution(run_id=run.pk)


RUN_FILTERS = [
    ListFilter("status", "status", choices=tuple(McqAssemblyRun.Status.values)),
]
RUN_ORDERINGS = ("created_at", "status")
RUN_EXAMPLE = {
    "id": 2,
    "status": "done",
    "params": {"measure": "tfidf", "similarity_max": 0.8, "relevance_min": 0.05},
    "seed": 1234,
    "gate_override_reason": "",
    "total": 10,
    "processed": 10,
    "assembled": 9,
    "needs_completion": 1,
    "percent": 100,
    "error": "",
    "started_by": "admin",
    "created_at": "2026-01-05T10:00:00Z",
    "finished_at": "2026-01-05T10:01:00Z",
}


def assembly_runs_queryset():
    return McqAssemblyRun.objects.select_related("started_by").order_by("-created_at", "-pk")


class AssemblyRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One assembly run and its progress",
        description="Poll it while the worker runs (status queued → running → done).",
        responses={200: AssemblyRunDetailSerializer, 403: ERROR, 404: ERROR},
        examples=[
            OpenApiExample("Run", value=RUN_EXAMPLE | {"keys": {"A": 3, "B": 2, "C": 2, "D": 2}})
        ],
    )
    def get(self, request, run_id: int):
        run = mcq_selectors.assembly_run_get(run_id=run_id)
        if run is None:
            raise NotFound("No such assembly run.")
        return Response(AssemblyRunDetailSerializer(run).data)
