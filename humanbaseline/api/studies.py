"""Studies over REST (/api/baseline/studies/): create, open/close, and their items."""

from django.db.models import Count, Q
from drf_spectacular.utils import extend_schema
from rest_framework import status

from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    ListFilter,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
)

from .. import actions, services
from ..forms import StudyForm
from ..models import BaselineStudy, Participation, StudyItem
from . import examples
from .common import (
    ADMIN_ERRORS,
    BaselineAdminApi,
    current_best_model,
    form_data,
    study_etag,
    study_or_404,
    study_response,
)
from .serializers import (
    StudyInputSerializer,
    StudyItemSerializer,
    StudyRowSerializer,
    StudySerializer,
    StudyStatusInputSerializer,
)

STUDY_FILTERS = [ListFilter("status", "status", choices=tuple(BaselineStudy.Status.values))]
STUDY_ORDERINGS = {"id": "pk", "name": "name", "created_at": "created_at", "status": "status"}


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
        examples=examples.STUDY_LIST_GET,
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
        examples=examples.STUDY_LIST_POST,
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
        examples=examples.STUDY_DETAIL_GET,
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
        examples=examples.STUDY_STATUS_POST,
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
        examples=examples.STUDY_ITEMS_GET,
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
