"""Answer-key sources and model predictions over REST (/api/baseline/), for admins: what
the subset selection draws on and what the report compares the participants with. The
page's form validates, the page's service writes, with the same messages."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema

from .. import actions, selectors, services
from ..forms import FamilyCsvForm, PredictionCsvForm
from ..models import ImportedPrediction, ItemSourceFamily
from ..subset import DEFAULT_QUOTAS
from . import examples
from .common import ADMIN_ERRORS, BaselineAdminApi, form_data

SOURCES_TEXT = ", ".join(source for source, _ in DEFAULT_QUOTAS)


class ItemSourceSerializer(serializers.Serializer):
    question_id = serializers.CharField(source="item.question_id")
    family = serializers.CharField(help_text=f"The answer-key source: {SOURCES_TEXT}.")
    origin = serializers.CharField(help_text="'reference', or 'csv:<file name>'.")
    updated_at = serializers.DateTimeField()


class BaselinePredictionSerializer(serializers.Serializer):
    model_label = serializers.CharField()
    question_id = serializers.CharField(source="item.question_id")
    letter = serializers.CharField(help_text="A–D; empty for an invalid response.")
    origin = serializers.CharField()
    created_at = serializers.DateTimeField()


class CsvUploadSerializer(serializers.Serializer):
    """Documents the multipart upload (the page's file field)."""

    file = serializers.FileField()


FamiliesInputSerializer = inline_serializer(
    "BaselineFamiliesInput",
    {
        "file": serializers.FileField(
            required=False, help_text="A question_id,family CSV (multipart)."
        ),
        "from": serializers.ChoiceField(
            choices=["references"],
            required=False,
            help_text="'references': copy each final item's source from its reference "
            "instead of uploading a CSV.",
        ),
    },
)


class ImportCountSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    message = serializers.CharField()


class SourceCountsSerializer(serializers.Serializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Final items per answer-key source, every source listed, then '(none)'.",
    )


FAMILY_FILTERS = [
    ListFilter("family", "family", description=f"One source: {SOURCES_TEXT}."),
    ListFilter("question_id", "item__question_id"),
    ListFilter("origin", "origin"),
]
FAMILY_ORDERINGS = {
    "question_id": "item__question_id",
    "family": "family",
    "updated_at": "updated_at",
}


class SourceCountsApi(BaselineAdminApi):
    @extend_schema(
        summary="Final items per answer-key source",
        description="What the selection can draw on: final items per source, every source "
        "listed, then '(none)' for items without one (they are not candidates).",
        responses={200: SourceCountsSerializer, **ADMIN_ERRORS},
        examples=examples.SOURCE_COUNTS_GET,
    )
    def get(self, request):
        return Response({"counts": selectors.source_counts()})


class FamiliesApi(BaselineAdminApi):
    @extend_schema(
        summary="Answer-key sources set by an admin",
        description="Items whose source an admin set (from the references or a CSV); an item "
        "without a row here takes its reference's source.",
        parameters=list_parameters(FAMILY_FILTERS, FAMILY_ORDERINGS),
        responses={200: paginated_schema(ItemSourceSerializer), 400: ERROR, **ADMIN_ERRORS},
        examples=examples.FAMILIES_GET,
    )
    def get(self, request):
        rows = ItemSourceFamily.objects.select_related("item").order_by("item__question_id")
        return list_response(
            request,
            self,
            rows,
            ItemSourceSerializer,
            filters=FAMILY_FILTERS,
            orderings=FAMILY_ORDERINGS,
        )

    @extend_schema(
        summary="Set answer-key sources",
        description="As the admin page: send `from=references` to copy each final item's "
        "source from its reference (an arbitrator's rewrite is 'expert_rewrite'), or upload "
        "a `question_id,family` CSV as the multipart field `file`. Any bad row rejects the "
        "whole file (400, one message per line) and changes nothing.",
        request={
            "multipart/form-data": FamiliesInputSerializer,
            "application/json": FamiliesInputSerializer,
        },
        responses={200: ImportCountSerializer, 400: ERROR, **ADMIN_ERRORS},
        examples=examples.FAMILIES_POST,
    )
    def post(self, request):
        if form_data(request).get("from") == "references":
            count = services.item_families_from_references()
            message = f"{count} item families copied from their references."
            return Response({"count": count, "message": message})
        count, name = actions.families_import_csv(FamilyCsvForm(request.data, request.FILES))
        return Response({"count": count, "message": f"{count} item families set from {name}."})


PREDICTION_FILTERS = [
    ListFilter("model_label", "model_label"),
    ListFilter("question_id", "item__question_id"),
]
PREDICTION_ORDERINGS = {
    "model_label": "model_label",
    "question_id": "item__question_id",
    "created_at": "created_at",
}


class PredictionsApi(BaselineAdminApi):
    @extend_schema(
        summary="Uploaded model predictions",
        description="Letters uploaded per model and item (the evaluation app's Naive-RAG "
        "predictions are read from its runs and are not listed here).",
        parameters=list_parameters(PREDICTION_FILTERS, PREDICTION_ORDERINGS),
        responses={200: paginated_schema(BaselinePredictionSerializer), 400: ERROR, **ADMIN_ERRORS},
        examples=examples.PREDICTIONS_GET,
    )
    def get(self, request):
        rows = ImportedPrediction.objects.select_related("item").order_by("model_label", "item")
        return list_response(
            request,
            self,
            rows,
            BaselinePredictionSerializer,
            filters=PREDICTION_FILTERS,
            orderings=PREDICTION_ORDERINGS,
        )

    @extend_schema(
        summary="Upload model predictions",
        description="A CSV as the multipart field `file`: header `question_id`, then one "
        "column per model; cells A–D, empty for an invalid response (scored incorrect). "
        "Any bad cell rejects the whole file (400) and changes nothing; a row already "
        "stored for a model and item is replaced.",
        request={"multipart/form-data": CsvUploadSerializer},
        responses={200: ImportCountSerializer, 400: ERROR, **ADMIN_ERRORS},
        examples=examples.PREDICTIONS_POST,
    )
    def post(self, request):
        count, name = actions.predictions_import_csv(PredictionCsvForm(request.data, request.FILES))
        message = f"{count} model predictions stored from {name}."
        return Response({"count": count, "message": message})
