"""Evaluation runs over REST (/api/evaluation/), for admins as the pages: runs and their
progress, predictions (paginated, filtered, ordered). The writes (launch, resume,
import) are in ``api_writes``."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

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

from . import selectors
from .models import EvaluationPrediction, EvaluationRun, Setting


class EvaluationRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    label = serializers.CharField()
    setting = serializers.CharField(help_text=", ".join(Setting.values))
    origin = serializers.CharField()
    status = serializers.CharField(help_text=", ".join(EvaluationRun.Status.values))
    item_set = serializers.CharField()
    provider_key = serializers.CharField()
    retrieval_method = serializers.CharField()
    k = serializers.IntegerField()
    decoding = serializers.JSONField()
    note = serializers.CharField()
    source_file = serializers.CharField()
    created_by = serializers.CharField(source="created_by.get_username")
    total = serializers.IntegerField(source="progress.total")
    done = serializers.IntegerField(source="progress.done")
    answered = serializers.IntegerField(source="progress.answered")
    invalid = serializers.IntegerField(source="progress.invalid")
    leak_blocked = serializers.IntegerField(source="progress.leak_blocked")
    failed = serializers.IntegerField(source="progress.failed")
    percent = serializers.IntegerField(source="progress.percent")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


RUN_EXAMPLE = {
    "id": 12,
    "label": "gpt-5.4",
    "setting": "naive_rag",
    "origin": "platform",
    "status": "running",
    "item_set": "all final items",
    "provider_key": "gpt",
    "retrieval_method": "bm25",
    "k": 30,
    "decoding": {"temperature": 0.0, "max_tokens": 4096, "max_attempts": 3},
    "note": "",
    "source_file": "",
    "created_by": "admin",
    "total": 673,
    "done": 240,
    "answered": 236,
    "invalid": 3,
    "leak_blocked": 0,
    "failed": 1,
    "percent": 36,
    "created_at": "2026-03-02T09:00:00Z",
    "started_at": "2026-03-02T09:00:01Z",
    "finished_at": None,
}


def run_tag(run: EvaluationRun) -> str:
    """The run's version for If-Match: its state, not its progress (a running run's
    counts change every second; a resume is refused only when the state moved)."""
    return etag("evaluation-run", run.pk, run.status, run.started_at, run.finished_at)


def run_or_404(run_id: int) -> EvaluationRun:
    run = selectors.run_get(run_id=run_id)
    if run is None:
        raise NotFound("No such evaluation run.")
    return run


def run_response(run: EvaluationRun, *, status: int = 200) -> Response:
    return with_etag(Response(EvaluationRunSerializer(run).data, status=status), run_tag(run))


RUN_FILTERS = [
    ListFilter("status", "status", choices=tuple(EvaluationRun.Status.values)),
    ListFilter("setting", "setting", choices=tuple(Setting.values)),
    ListFilter("origin", "origin", choices=tuple(EvaluationRun.Origin.values)),
    ListFilter("label", "label", description="Only runs with exactly this model label."),
]
RUN_ORDERINGS = {"id": "pk", "created_at": "created_at", "label": "label", "status": "status"}


def run_list(request, view) -> Response:
    return list_response(
        request,
        view,
        selectors.run_queryset(),
        EvaluationRunSerializer,
        filters=RUN_FILTERS,
        orderings=RUN_ORDERINGS,
        serialize=lambda page: (
            EvaluationRunSerializer(selectors.with_progress(page), many=True).data
        ),
    )


RUN_LIST_SCHEMA = {
    "operation_id": "evaluation_runs_list",
    "summary": "List evaluation runs",
    "description": "Every evaluation run, newest first, with its progress counts: runs "
    "made on the platform and imported predictions. Admins only, as the evaluation page.",
    "parameters": list_parameters(RUN_FILTERS, RUN_ORDERINGS),
    "responses": {200: paginated_schema(EvaluationRunSerializer), 403: ERROR},
    "examples": [
        OpenApiExample(
            "A page of runs",
            value={"count": 1, "next": None, "previous": None, "results": [RUN_EXAMPLE]},
            response_only=True,
            status_codes=["200"],
        )
    ],
}


class EvaluationRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One evaluation run's progress",
        description="The run and its progress counts. The ETag names the run's state "
        "(status, start, end); send it as If-Match with a resume.",
        responses={200: EvaluationRunSerializer, 403: ERROR, 404: ERROR},
        examples=[OpenApiExample("A running run", value=RUN_EXAMPLE, response_only=True)],
    )
    def get(self, request, run_id: int):
        return run_response(run_or_404(run_id))


class PredictionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    question_id = serializers.CharField(source="item.question_id")
    status = serializers.CharField(help_text=", ".join(EvaluationPrediction.Status.values))
    choice = serializers.CharField(help_text="A-D; empty when there is no valid answer.")
    correct = serializers.SerializerMethodField(
        help_text="Whether the choice is the key; null until graded (answered or invalid)."
    )
    parse_path = serializers.CharField()
    leak_reasons = serializers.JSONField()
    error_kind = serializers.CharField()
    attempts = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    latency_s = serializers.FloatField(allow_null=True)
    updated_at = serializers.DateTimeField()

    def get_correct(self, prediction) -> bool | None:
        if prediction.status not in selectors.GRADED:
            return None
        return prediction.choice == prediction.item.correct_answer


class PredictionDetailSerializer(PredictionSerializer):
    user_prompt = serializers.CharField()
    raw_response = serializers.CharField()
    parsed = serializers.JSONField()
    error_message = serializers.CharField()
    prompt_hash = serializers.CharField()


PREDICTION_EXAMPLE = {
    "id": 3021,
    "question_id": "SCN_SCHOOL_AGE_1__CHAR_01",
    "status": "answered",
    "choice": "B",
    "correct": True,
    "parse_path": "json",
    "leak_reasons": [],
    "error_kind": "",
    "attempts": 1,
    "tokens_in": 5120,
    "tokens_out": 210,
    "latency_s": 2.4,
    "updated_at": "2026-03-02T09:03:10Z",
}
PREDICTION_FILTERS = [
    ListFilter("status", "status", choices=tuple(EvaluationPrediction.Status.values)),
    ListFilter("question_id", "item__question_id", description="Only this item."),
    ListFilter("choice", "choice", choices=("A", "B", "C", "D")),
]
PREDICTION_ORDERINGS = {
    "question_id": "item__question_id",
    "status": "status",
    "updated_at": "updated_at",
    "id": "pk",
}


class EvaluationPredictionListApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        operation_id="evaluation_runs_predictions_list",
        summary="List a run's predictions",
        description="One row per item of the run, by question_id: status, the choice and "
        "whether it is correct, how it was parsed. The prompt and raw response are on each "
        "prediction's own endpoint.",
        parameters=list_parameters(PREDICTION_FILTERS, PREDICTION_ORDERINGS),
        responses={200: paginated_schema(PredictionSerializer), 400: ERROR, 403: ERROR, 404: ERROR},
        examples=[
            OpenApiExample(
                "A page of predictions",
                value={"count": 1, "next": None, "previous": None, "results": [PREDICTION_EXAMPLE]},
                response_only=True,
                status_codes=["200"],
            )
        ],
    )
    def get(self, request, run_id: int):
        run = run_or_404(run_id)
        rows = selectors.run_predictions(run_id=run.pk).select_related("item")
        return list_response(
            request,
            self,
            rows,
            PredictionSerializer,
            filters=PREDICTION_FILTERS,
            orderings=PREDICTION_ORDERINGS,
        )


class EvaluationPredictionDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One prediction with its prompt and raw response",
        description="What the model was sent (user prompt and its hash) and answered (raw "
        "response, parsed object), as the prediction's page shows it.",
        responses={200: PredictionDetailSerializer, 403: ERROR, 404: ERROR},
        examples=[
            OpenApiExample(
                "An answered item",
                value=PREDICTION_EXAMPLE
                | {
                    "user_prompt": "## Character\n...\n## Decision options\nA. ...",
                    "raw_response": '{"decision_choice": "B", "rationale": "..."}',
                    "parsed": {"decision_choice": "B", "rationale": "..."},
                    "error_message": "",
                    "prompt_hash": "3f2a...",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, run_id: int, prediction_id: int):
        prediction = selectors.prediction_get(run_id=run_id, prediction_id=prediction_id)
        if prediction is None:
            raise NotFound("No such prediction.")
        return Response(PredictionDetailSerializer(prediction).data)
