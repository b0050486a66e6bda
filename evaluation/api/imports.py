"""Imported predictions over REST (/api/evaluation/import/): a file of another system's
predictions through the page's importer; any wrong row refuses the whole file.
"""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.views import APIView

from core.api import ERROR
from core.role_before_body import RoleBeforeBody
from core.roles import HasRole, Role
from core.text_rules import NOTE

from .. import actions, selectors
from ..forms import PredictionImportForm
from ..models import LABEL_MAX
from . import examples
from .common import form_fields
from .runs import EvaluationRunSerializer, run_response

IMPORT_REQUEST = inline_serializer(
    "PredictionImport",
    {
        "file": serializers.FileField(
            help_text='JSON ({"model", "setting", "predictions": [...]}) or CSV '
            "(question_id, decision_choice); the name's .csv ending picks CSV."
        ),
        "label": serializers.CharField(
            required=False, max_length=LABEL_MAX, help_text='Blank: the file\'s "model".'
        ),
        "setting": serializers.CharField(required=False, help_text="Blank: the file's."),
        "note": serializers.CharField(required=False, max_length=NOTE),
    },
)


class PredictionImportApi(RoleBeforeBody, APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)
    # Uploads only; a person without the role is refused (403) before the body is read.
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Import a model's predictions as a finished run",
        description="Upload (multipart) the file the import page takes; the same importer "
        "checks it. Any wrong row refuses the whole file and stores nothing: the 400 names "
        "the row (CSV line, or predictions[n] in JSON) and the field (under fields.file, "
        "fields.label or fields.setting). Answers 201 with the imported run.",
        request={"multipart/form-data": IMPORT_REQUEST},
        responses={201: EvaluationRunSerializer, 400: ERROR, 403: ERROR},
        examples=examples.PREDICTION_IMPORT_POST,
    )
    def post(self, request):
        form = PredictionImportForm(
            data=form_fields(request, PredictionImportForm), files=request.FILES
        )
        run = actions.run_import(form, user=request.user)
        return run_response(selectors.run_get(run_id=run.pk), status=status.HTTP_201_CREATED)
