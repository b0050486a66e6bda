"""What every baseline endpoint shares: admins only, the page's form fed from a JSON or
form body, and a study looked up with its counts and answered with its ETag.
"""

from django.db.models import Count, Q
from django.http import QueryDict
from rest_framework import status
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ERROR, etag, with_etag
from core.roles import HasRole, Role

from .. import selectors
from ..models import BaselineStudy, BestModelChoice
from .serializers import StudySerializer


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
