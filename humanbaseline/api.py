"""The human baseline's administration over REST (/api/baseline/), for admins: the
subset selection and studies (create, open/close, items). Answer-key sources and model
predictions are in ``api_sources.py``; participants, time on task, the best model and the
report in ``api_study.py``.

Thin, as the pages are: the page's form validates, the page's service writes, with the
same messages. A participant holds no API token and every endpoint here refuses the
participant role (403): the participant's study stays in the browser.
"""

from django.db.models import Count, Q
from django.http import QueryDict
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.actions import validated
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

from . import actions, selectors, services
from .api_serializers import (
    SELECTION_FIELDS_HELP,
    BaselineSelectionSerializer,
    SelectionInputSerializer,
    SelectionItemSerializer,
    SelectionRowSerializer,
    StudyInputSerializer,
    StudyItemSerializer,
    StudyRowSerializer,
    StudySerializer,
    StudyStatusInputSerializer,
)
from .forms import SelectionForm, StudyForm
from .models import (
    BaselineStudy,
    BestModelChoice,
    Participation,
    StudyItem,
    SubsetSelection,
)


class BaselineAdminApi(APIView):
    """Admins only, as every ``baseline:admin`` page."""

    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)
    parser_classes = [JSONParser, FormParser, MultiPartParser]


def form_data(request, *, listed=()) -> dict | QueryDict:
    """The request body for a page's form. A form post passes as it is; in JSON, a list
    given for a field the page takes one per line (``listed``) becomes lines."""
    data = request.data
    if isinstance(data, QueryDict):
        return data
    if not isinstance(data, dict):
        raise ParseError("Send a JSON object with the form's fields.")
    data = dict(data)
    for name in listed:
        if isinstance(data.get(name), list):
            data[name] = "\n".join(str(v) for v in data[name])
    return data


def study_or_404(study_id: int) -> BaselineStudy:
    study = (
        BaselineStudy.objects.select_related("created_by")
        .annotate(
            n_items=Count("items", filter=Q(items__is_practice=False), distinct=True),
            n_practice=Count("items", filter=Q(items__is_practice=True), distinct=True),
        )
        .filter(pk=study_id)
        .first()
    )
    if study is None:
        raise NotFound("No such study.")
    return study


def current_best_model(study) -> BestModelChoice | None:
    return (
        BestModelChoice.objects.filter(study=study)
        .select_related("chosen_by")
        .order_by("-chosen_at", "-pk")
        .first()
    )


def study_etag(study, best: BestModelChoice | None) -> str:
    """Changes when the study opens or closes or its best model is fixed again."""
    return etag("baseline-study", study.pk, study.status, best.pk if best else "")


def study_response(request, study, *, code=status.HTTP_200_OK) -> Response:
    best = current_best_model(study)
    context = {
        "request": request,
        "best_model": best,
        "latest_report": selectors.latest_report(study=study),
    }
    response = Response(StudySerializer(study, context=context).data, status=code)
    return with_etag(response, study_etag(study, best))


ADMIN_ERRORS = {403: ERROR}

# --- Subset selections --------------------------------------------------------------------

SELECTION_FILTERS = [ListFilter("feasible", "feasible", bool), ListFilter("seed", "seed", int)]
SELECTION_ORDERINGS = ["id", "created_at", "seed"]
SELECTION_EXAMPLE = {
    "id": 3,
    "seed": 20261012,
    "feasible": True,
    "failed_at": "",
    "n_items": 9,
    "n_candidates": 12,
    "n_without_family": 0,
    "created_by": "admin",
    "created_at": "2026-12-05T08:00:00Z",
}


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
        examples=[
            OpenApiExample(
                "One page",
                value={"count": 1, "next": None, "previous": None, "results": [SELECTION_EXAMPLE]},
                response_only=True,
            )
        ],
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
        examples=[
            OpenApiExample(
                "Three per family",
                value={
                    "seed": 20261012,
                    "quota_gemini": 3,
                    "quota_claude": 3,
                    "quota_gpt": 3,
                    "quota_expert_rewrite": 0,
                    "held_out_scenarios": ["SCN_SCHOOL_AGE_4"],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Recorded",
                value={
                    **SELECTION_EXAMPLE,
                    "parameters": {"quotas": {"gemini": 3, "claude": 3, "gpt": 3}, "total": 9},
                    "problems": [],
                    "notes": [],
                    "proposal": {},
                    "objective": 0.0,
                    "tables": {"stages": ["school_age"], "overall": {}, "sources": {}},
                },
                response_only=True,
            ),
        ],
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
        examples=[
            OpenApiExample(
                "Feasible",
                value={
                    **SELECTION_EXAMPLE,
                    "parameters": {"n_items": 9, "tolerance": 1},
                    "problems": [],
                    "notes": [],
                    "proposal": {},
                    "objective": 0.0,
                    "tables": {},
                },
                response_only=True,
            )
        ],
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
        examples=[
            OpenApiExample(
                "One page",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                            "family": "gpt",
                            "character": "CHAR_01",
                            "stage": "school_age",
                        }
                    ],
                },
                response_only=True,
            )
        ],
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


# --- Studies ------------------------------------------------------------------------------

STUDY_FILTERS = [ListFilter("status", "status", choices=tuple(BaselineStudy.Status.values))]
STUDY_ORDERINGS = {"id": "pk", "name": "name", "created_at": "created_at", "status": "status"}
STUDY_EXAMPLE = {
    "id": 1,
    "name": "Everyday decisions study",
    "status": "open",
    "selection": 3,
    "consent_version": "v1",
    "consent_text": "You may stop at any time.",
    "briefing": "You will read short life stories.",
    "pay_text": "£12 an hour of recorded study time, paid after you finalize.",
    "retrieval_method": "bm25",
    "k": 30,
    "invitation_url": "https://heartbench.example/baseline/join/0b6c…/",
    "n_items": 9,
    "n_practice": 1,
    "best_model": None,
    "report_status": None,
    "created_by": "admin",
    "created_at": "2026-12-05T08:00:00Z",
}


def same_study(form: StudyForm) -> BaselineStudy | None:
    """A study this very form already created (a retried submit): same name, selection,
    consent, briefing and pay. Its items were fixed then; nothing is created again."""
    data = form.cleaned_data
    return (
        BaselineStudy.objects.filter(
            name=data["name"],
            selection=data["selection"],
            consent_version=data["consent_version"].strip(),
            consent_text=data["consent_text"],
            briefing=data["briefing"],
            pay_text=data["pay_text"].strip(),
            retrieval_method=data["retrieval_method"],
            k=data["k"],
        )
        .order_by("pk")
        .first()
    )


class StudyListApi(BaselineAdminApi):
    @extend_schema(
        summary="Baseline studies",
        operation_id="baseline_studies_list",
        description="Every study with its participants and how many finalized.",
        parameters=list_parameters(STUDY_FILTERS, STUDY_ORDERINGS),
        responses={200: paginated_schema(StudyRowSerializer), 400: ERROR, **ADMIN_ERRORS},
        examples=[
            OpenApiExample(
                "One page",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": 1,
                            "name": "Everyday decisions study",
                            "status": "open",
                            "selection": 3,
                            "n_participants": 4,
                            "n_finalized": 2,
                            "created_at": "2026-12-05T08:00:00Z",
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request):
        rows = BaselineStudy.objects.annotate(
            n_participants=Count("participants", distinct=True),
            n_finalized=Count(
                "participants",
                filter=Q(participants__status=Participation.Status.FINALIZED),
                distinct=True,
            ),
        ).order_by("-created_at", "-pk")
        return list_response(
            request,
            self,
            rows,
            StudyRowSerializer,
            filters=STUDY_FILTERS,
            orderings=STUDY_ORDERINGS,
        )

    @extend_schema(
        summary="Create a study",
        description="The study form: fixes the selection's items, practice items (named, or "
        "`practice_count` picked from scenarios outside the subset) and every item's "
        "retrieval set. 201 with the study; the same submit again answers 200 with the "
        "study it created. The service's refusals (an infeasible selection, a practice item "
        "in the subset, ...) are a 400 with its messages.",
        request=StudyInputSerializer,
        responses={201: StudySerializer, 200: StudySerializer, 400: ERROR, **ADMIN_ERRORS},
        examples=[
            OpenApiExample(
                "A study",
                value={
                    "name": "Everyday decisions study",
                    "selection": 3,
                    "consent_version": "v1",
                    "consent_text": "You may stop at any time.",
                    "briefing": "You will read short life stories.",
                    "pay_text": "£12 an hour of recorded study time, paid after you finalize.",
                    "practice_count": 1,
                    "retrieval_method": "bm25",
                    "k": 30,
                },
                request_only=True,
            ),
            OpenApiExample("Created", value=STUDY_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request):
        form = StudyForm(form_data(request, listed=["practice_question_ids"]))
        validated(form)
        existing = same_study(form)
        if existing is not None:
            return study_response(request, study_or_404(existing.pk))
        created = actions.study_create(form, user=request.user)
        return study_response(request, study_or_404(created.pk), code=status.HTTP_201_CREATED)


class StudyDetailApi(BaselineAdminApi):
    @extend_schema(
        summary="One study",
        description="Its settings, invitation link, item counts, current best model and "
        "latest report status. The ETag changes when the study opens or closes or its best "
        "model is fixed again; send it as If-Match with those writes.",
        responses={200: StudySerializer, 404: ERROR, **ADMIN_ERRORS},
        examples=[OpenApiExample("Open", value=STUDY_EXAMPLE, response_only=True)],
    )
    def get(self, request, study_id: int):
        return study_response(request, study_or_404(study_id))


class StudyStatusApi(BaselineAdminApi):
    @extend_schema(
        summary="Open or close a study",
        description="As the page's Close/Reopen button: a closed study takes no new "
        "participant and no answer; answers given are kept. Setting the status it already "
        "has changes nothing (200). With a stale If-Match: 412.",
        parameters=[IF_MATCH],
        request=StudyStatusInputSerializer,
        responses={200: StudySerializer, 400: ERROR, 404: ERROR, 412: ERROR, **ADMIN_ERRORS},
        examples=[
            OpenApiExample("Close", value={"status": "closed"}, request_only=True),
            OpenApiExample(
                "Closed", value={**STUDY_EXAMPLE, "status": "closed"}, response_only=True
            ),
        ],
    )
    def post(self, request, study_id: int):
        study = study_or_404(study_id)
        require_fresh(request, study_etag(study, current_best_model(study)))
        body = StudyStatusInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if body.validated_data["status"] != study.status:
            services.study_set_status(study=study, status=body.validated_data["status"])
        return study_response(request, study_or_404(study_id))


STUDY_ITEM_FILTERS = [ListFilter("is_practice", "is_practice", bool)]
STUDY_ITEM_ORDERINGS = {"position": "position", "question_id": "item__question_id"}


class StudyItemsApi(BaselineAdminApi):
    @extend_schema(
        summary="A study's items",
        description="The subset's items and the practice items, with the retrieval set each "
        "was fixed with (every participant sees that set).",
        parameters=list_parameters(STUDY_ITEM_FILTERS, STUDY_ITEM_ORDERINGS),
        responses={
            200: paginated_schema(StudyItemSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample(
                "One page",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "position": 1,
                            "is_practice": False,
                            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                            "character": "CHAR_01",
                            "stage": "school_age",
                            "retrieval_set": 12,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        rows = (
            StudyItem.objects.filter(study=study)
            .select_related("item__character")
            .order_by("is_practice", "position")
        )
        return list_response(
            request,
            self,
            rows,
            StudyItemSerializer,
            filters=STUDY_ITEM_FILTERS,
            orderings=STUDY_ITEM_ORDERINGS,
        )
