"""Subset selections over REST (/api/baseline/selections/): App. J's item-subset ILP
runs, run one, see one and the items it chose.
"""

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema

from .. import actions, selectors
from ..forms import SelectionForm
from ..models import SubsetSelection
from ..subset import BALANCE_GROUPS
from . import examples
from .common import ADMIN_ERRORS, BaselineAdminApi, form_data
from .sources import SOURCES_TEXT


class SelectionRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    seed = serializers.IntegerField()
    feasible = serializers.BooleanField()
    failed_at = serializers.CharField(help_text="'', 'precheck' or 'solver'.")
    n_items = serializers.IntegerField()
    n_candidates = serializers.IntegerField()
    n_without_family = serializers.IntegerField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()


class BaselineSelectionSerializer(SelectionRowSerializer):
    parameters = serializers.JSONField(
        help_text="Quotas, ranges set by hand, tolerances, and every range the model used."
    )
    problems = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(child=serializers.CharField())
    proposal = serializers.JSONField(
        help_text="When infeasible: the largest feasible study (the most items any choice of "
        "quotas admits under App. J's scaled ranges, at most the size asked for): its quotas "
        "and ranges (send the quotas back as a new selection to take it), `binding` (what "
        "keeps it from being larger), `notes` and `proven`; {} otherwise."
    )
    objective = serializers.FloatField(allow_null=True)
    tables = serializers.SerializerMethodField()

    def get_tables(self, selection) -> dict:
        """Selected items per character × life-stage bin, overall and per source."""
        tables = self.context["tables"]

        def table(t):
            return {
                "rows": [
                    {"character": c, "counts": counts, "total": total}
                    for c, counts, total in t["rows"]
                ],
                "totals": t["totals"],
                "n": t["n"],
            }

        return {
            "stages": [key for key, _ in tables["stages"]],
            "overall": table(tables["overall"]),
            "sources": {family: table(t) for family, t in tables["families"]},
        }


SELECTION_FIELDS_HELP = (
    f"seed; quota_<source> for {SOURCES_TEXT} (the subset size is their sum); for each "
    f"balance group ({', '.join(BALANCE_GROUPS)}) optional <group>_min and <group>_max "
    "(both or neither) and <group>_slack; held_out_scenarios (scenario_ids, a list or one "
    "per line): their items stay out of the candidates, for practice."
)


class SelectionInputSerializer(serializers.Serializer):
    """The selection form's fields (documented; the form validates them)."""

    seed = serializers.IntegerField()
    held_out_scenarios = serializers.ListField(child=serializers.CharField(), required=False)
    quota_gemini = serializers.IntegerField(min_value=0)
    quota_claude = serializers.IntegerField(min_value=0)
    quota_gpt = serializers.IntegerField(min_value=0)
    quota_expert_rewrite = serializers.IntegerField(min_value=0)


class SelectionItemSerializer(serializers.Serializer):
    question_id = serializers.CharField(source="item.question_id")
    family = serializers.CharField(help_text="The answer-key source the ILP balanced.")
    character = serializers.CharField(source="character_key")
    stage = serializers.CharField()


SELECTION_FILTERS = [ListFilter("feasible", "feasible", bool), ListFilter("seed", "seed", int)]
SELECTION_ORDERINGS = ["id", "created_at", "seed"]


def selection_or_404(selection_id: int) -> SubsetSelection:
    selection = (
        SubsetSelection.objects.select_related("created_by")
        .annotate(n_items=Count("items"))
        .filter(pk=selection_id)
        .first()
    )
    if selection is None:
        raise NotFound("No such selection.")
    return selection


def selection_data(selection: SubsetSelection) -> dict:
    context = {"tables": selectors.selection_tables(selection)}
    return BaselineSelectionSerializer(selection, context=context).data


class SelectionListApi(BaselineAdminApi):
    @extend_schema(
        summary="Subset selections (ILP runs)",
        operation_id="baseline_selections_list",
        description="Every run of App. J's item-subset ILP, newest first, feasible or not.",
        parameters=list_parameters(SELECTION_FILTERS, SELECTION_ORDERINGS),
        responses={200: paginated_schema(SelectionRowSerializer), 400: ERROR, **ADMIN_ERRORS},
        examples=examples.SELECTION_LIST_GET,
    )
    def get(self, request):
        rows = SubsetSelection.objects.select_related("created_by").annotate(n_items=Count("items"))
        return list_response(
            request,
            self,
            rows.order_by("-created_at", "-pk"),
            SelectionRowSerializer,
            filters=SELECTION_FILTERS,
            orderings={"id": "pk", "created_at": "created_at", "seed": "seed"},
        )

    @extend_schema(
        summary="Run the subset selection",
        description="The admin page's selection form. Fields: "
        + SELECTION_FIELDS_HELP
        + " Every run is recorded (201), feasible or not; an infeasible one names its "
        "problems and, where one exists, proposes the largest feasible study. A form error "
        "is a 400 naming the field.",
        request=SelectionInputSerializer,
        responses={201: BaselineSelectionSerializer, 400: ERROR, **ADMIN_ERRORS},
        examples=examples.SELECTION_LIST_POST,
    )
    def post(self, request):
        form = SelectionForm(form_data(request, listed=["held_out_scenarios"]))
        selection = actions.selection_create(form, user=request.user)
        return Response(
            selection_data(selection_or_404(selection.pk)), status=status.HTTP_201_CREATED
        )


class SelectionDetailApi(BaselineAdminApi):
    @extend_schema(
        summary="One subset selection",
        description="Its parameters, outcome, problems, proposal and the selected items per "
        "character × life-stage bin, overall and per source.",
        responses={200: BaselineSelectionSerializer, 404: ERROR, **ADMIN_ERRORS},
        examples=examples.SELECTION_DETAIL_GET,
    )
    def get(self, request, selection_id: int):
        return Response(selection_data(selection_or_404(selection_id)))


SELECTION_ITEM_FILTERS = [
    ListFilter("family", "family"),
    ListFilter("character", "character_key"),
    ListFilter("stage", "stage"),
]
SELECTION_ITEM_ORDERINGS = {
    "question_id": "item__question_id",
    "family": "family",
    "character": "character_key",
    "stage": "stage",
}


class SelectionItemsApi(BaselineAdminApi):
    @extend_schema(
        summary="The items a selection chose",
        description="With the source, character and life stage the ILP balanced (snapshots).",
        parameters=list_parameters(SELECTION_ITEM_FILTERS, SELECTION_ITEM_ORDERINGS),
        responses={
            200: paginated_schema(SelectionItemSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=examples.SELECTION_ITEMS_GET,
    )
    def get(self, request, selection_id: int):
        selection = selection_or_404(selection_id)
        rows = selection.items.select_related("item").order_by("item__question_id")
        return list_response(
            request,
            self,
            rows,
            SelectionItemSerializer,
            filters=SELECTION_ITEM_FILTERS,
            orderings=SELECTION_ITEM_ORDERINGS,
        )
