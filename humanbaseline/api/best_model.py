"""A study's best model over REST (/api/baseline/studies/<id>/best-model/), fixed
before the report.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
)
from core.text_rules import NOTE, SerializerTextRules

from .. import actions, selectors
from ..forms import BestModelForm
from ..models import MODEL_LABEL_MAX, BestModelChoice
from . import examples
from .common import (
    ADMIN_ERRORS,
    BaselineAdminApi,
    current_best_model,
    form_data,
    study_etag,
    study_or_404,
)
from .serializers import BestModelChoiceSerializer


class BestModelInputSerializer(SerializerTextRules, serializers.Serializer):
    runs = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Naive-RAG run ids."
    )
    model_label = serializers.CharField(
        required=False, allow_blank=True, max_length=MODEL_LABEL_MAX
    )
    reason = serializers.CharField(required=False, allow_blank=True, max_length=NOTE)


def replayed_choice(latest: BestModelChoice | None, data: dict) -> bool:
    """The latest fix is this very request (a retried submit): the same runs or label and
    reason. Fixing it again would record a second, identical row."""
    if latest is None or (data.get("reason") or "").strip() != latest.reason:
        return False
    run_ids = sorted(run.pk for run in data.get("runs") or [])
    if run_ids:
        return latest.method == BestModelChoice.Method.FULL_BENCHMARK and run_ids == sorted(
            r["run_id"] for r in latest.runs
        )
    label = (data.get("model_label") or "").strip()
    return latest.method == BestModelChoice.Method.ADMIN and label == latest.model_label


class BestModelApi(BaselineAdminApi):
    @extend_schema(
        summary="A study's best-model history",
        description="Every fix of the model App. J sets against the participants, oldest "
        "first; the last is the current one.",
        parameters=list_parameters(orderings=["chosen_at"]),
        responses={
            200: paginated_schema(BestModelChoiceSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=examples.BEST_MODEL_GET,
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        return list_response(
            request,
            self,
            selectors.best_model_history(study=study),
            BestModelChoiceSerializer,
            orderings=["chosen_at"],
        )

    @extend_schema(
        summary="Fix the best model",
        description="Before the report (App. J): `runs` (Naive-RAG evaluation run ids; the "
        "one with the highest accuracy on the full final set wins) or `model_label` (named "
        "in advance), not both. Once participants have answered, a `reason` is required and "
        "the change is recorded as a protocol deviation. 201 with the new fix; the same "
        "submit again answers 200 with it. With a stale If-Match (the study's ETag): 412.",
        parameters=[IF_MATCH],
        request=BestModelInputSerializer,
        responses={
            201: BestModelChoiceSerializer,
            200: BestModelChoiceSerializer,
            400: ERROR,
            404: ERROR,
            412: ERROR,
            **ADMIN_ERRORS,
        },
        examples=examples.BEST_MODEL_POST,
    )
    def post(self, request, study_id: int):
        study = study_or_404(study_id)
        latest = current_best_model(study)
        require_fresh(request, study_etag(study, latest))
        form = BestModelForm(form_data(request), study=study)
        validated(form)
        if replayed_choice(latest, form.cleaned_data):
            return Response(BestModelChoiceSerializer(latest).data)
        choice = actions.best_model_fix(form, user=request.user, study=study)
        return Response(BestModelChoiceSerializer(choice).data, status=status.HTTP_201_CREATED)
