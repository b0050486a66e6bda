"""A run's predictions over REST (/api/evaluation/runs/<id>/predictions/): paginated,
filtered, ordered; one with its prompt and raw response.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema
from core.roles import HasRole, Role

from .. import selectors
from ..models import EvaluationPrediction
from . import examples
from .runs import run_or_404


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
        examples=examples.EVALUATION_PREDICTION_LIST_GET,
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
        examples=examples.EVALUATION_PREDICTION_DETAIL_GET,
    )
    def get(self, request, run_id: int, prediction_id: int):
        prediction = selectors.prediction_get(run_id=run_id, prediction_id=prediction_id)
        if prediction is None:
            raise NotFound("No such prediction.")
        return Response(PredictionDetailSerializer(prediction).data)
