"""The writes of evaluation runs over REST, for admins, through the pages' own forms and
services: launch a run, resume one, import a predictions file, each through the page's
action (``evaluation.actions``)."""

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import ERROR, IF_MATCH, require_fresh
from core.roles import HasRole, Role
from core.text_rules import NAME, NOTE

from . import actions, selectors
from .api import (
    RUN_EXAMPLE,
    RUN_LIST_SCHEMA,
    EvaluationRunSerializer,
    run_list,
    run_or_404,
    run_response,
    run_tag,
)
from .forms import ITEM_SET_CHOICES, EvaluationRunForm, PredictionImportForm
from .models import LABEL_MAX

NO_IDS = "List the question ids, or choose all final items."


def _form_data(request, form_class) -> dict:
    """The request's fields for ``form_class``, with the page's initial values for those
    a script leaves out (as the page's form sends them); a list of question ids is
    accepted as well as the page's text."""
    if not isinstance(request.data, dict):
        raise ParseError("Send the fields as a JSON object or a form.")
    data = {}
    for name, field in form_class.base_fields.items():
        if field.initial is not None and not isinstance(field.initial, list | tuple):
            data[name] = field.initial
    for name in request.data:
        if name in request.FILES:
            continue
        value = request.data.get(name)
        if name == "question_ids" and isinstance(value, list):
            value = "\n".join(str(v) for v in value)
        data[name] = value
    return data


LAUNCH_REQUEST = inline_serializer(
    "EvaluationRunLaunch",
    {
        "provider": serializers.CharField(
            max_length=NAME, help_text="A configured evaluation model's name."
        ),
        "setting": serializers.CharField(max_length=NAME, help_text="no_retrieval, naive_rag, ..."),
        "label": serializers.CharField(required=False, max_length=LABEL_MAX),
        "item_set": serializers.ChoiceField(
            choices=[c for c, _ in ITEM_SET_CHOICES], required=False, default="all"
        ),
        "question_ids": serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text="With item_set=ids (a list, or the page's text: one per line).",
        ),
        "item_csv": serializers.FileField(
            required=False, help_text="With item_set=csv (multipart): a question_id column."
        ),
        "item_set_name": serializers.CharField(required=False, max_length=NAME),
        "retrieval_method": serializers.CharField(required=False, default="bm25", max_length=NAME),
        "k": serializers.IntegerField(required=False, default=30),
        "temperature": serializers.FloatField(required=False, allow_null=True, default=0.0),
        "max_tokens": serializers.IntegerField(required=False, default=4096),
        "note": serializers.CharField(required=False, max_length=NOTE),
    },
)


class EvaluationRunListApi(APIView):
    """The runs: list them (GET), launch one (POST)."""

    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(**RUN_LIST_SCHEMA)
    def get(self, request):
        return run_list(request, self)

    @extend_schema(
        summary="Launch an evaluation run",
        description="Creates the run (one prediction per item) and queues it on the workers, "
        "as the evaluation page's form does, with the same fields, defaults and messages. "
        "Answers 201 with the run; follow its progress with GET /api/evaluation/runs/{id}/. "
        "Each launch is a new run (a launch sent twice runs twice). A bad field is a 400 "
        "naming it; an item set the service refuses (unknown or not final question ids) "
        "is a 400 with its message.",
        request={"application/json": LAUNCH_REQUEST, "multipart/form-data": LAUNCH_REQUEST},
        responses={201: EvaluationRunSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "Naive-RAG on the final set",
                value={"provider": "gpt", "setting": "naive_rag", "label": "gpt-5.4"},
                request_only=True,
            ),
            OpenApiExample(
                "Two items, no retrieval",
                value={
                    "provider": "gpt",
                    "setting": "no_retrieval",
                    "item_set": "ids",
                    "question_ids": ["SCN_SCHOOL_AGE_1__CHAR_01", "SCN_SCHOOL_AGE_1__CHAR_02"],
                    "item_set_name": "pilot 2",
                },
                request_only=True,
            ),
            OpenApiExample(
                "The launched run",
                value=RUN_EXAMPLE | {"status": "running", "done": 0, "percent": 0},
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "A field refused",
                value={
                    "detail": ["List the question ids, or choose all final items."],
                    "fields": {
                        "question_ids": ["List the question ids, or choose all final items."]
                    },
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    def post(self, request):
        form = EvaluationRunForm(data=_form_data(request, EvaluationRunForm), files=request.FILES)
        run = actions.run_launch(form, user=request.user)
        return run_response(selectors.run_get(run_id=run.pk), status=status.HTTP_201_CREATED)


class EvaluationRunResumeApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="Resume a run",
        description="Queues again every item without a stored response (waiting, "
        "interrupted, failed calls), as the run page's Resume button; answered items are "
        "never asked twice. A run with nothing left to ask, an imported or a pending run "
        "is a 400 with the reason. With If-Match, a run whose state changed since that "
        "read answers 412.",
        request=None,
        parameters=[IF_MATCH],
        responses={
            200: inline_serializer(
                "EvaluationRunResumed",
                {"queued": serializers.IntegerField(), "run": EvaluationRunSerializer()},
            ),
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=[
            OpenApiExample(
                "Two failed calls queued again",
                value={"queued": 2, "run": RUN_EXAMPLE},
                response_only=True,
                status_codes=["200"],
            ),
            OpenApiExample(
                "Nothing to resume",
                value={"detail": ["Run 12 has a stored response for every item."]},
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    def post(self, request, run_id: int):
        run = run_or_404(run_id)
        require_fresh(request, run_tag(run))
        queued = actions.run_resume(run_id=run.pk)
        run = selectors.run_get(run_id=run.pk)
        body = {"queued": queued, "run": EvaluationRunSerializer(run).data}
        response = Response(body)
        response["ETag"] = run_tag(run)
        return response


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


class PredictionImportApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Import a model's predictions as a finished run",
        description="Upload (multipart) the file the import page takes; the same importer "
        "checks it. Any wrong row refuses the whole file and stores nothing: the 400 names "
        "the row (CSV line, or predictions[n] in JSON) and the field (under fields.file, "
        "fields.label or fields.setting). Answers 201 with the imported run.",
        request={"multipart/form-data": IMPORT_REQUEST},
        responses={201: EvaluationRunSerializer, 400: ERROR, 403: ERROR},
        examples=[
            OpenApiExample(
                "A CSV of letters",
                value={"file": "(predictions.csv)", "label": "qwen-3", "setting": "naive_rag"},
                request_only=True,
            ),
            OpenApiExample(
                "The imported run",
                value=RUN_EXAMPLE
                | {"origin": "imported", "status": "imported", "source_file": "predictions.csv"},
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "A row refused",
                value={
                    "detail": ["Line 3: decision_choice 'E' is not A, B, C, D or blank."],
                    "fields": {"file": ["Line 3: decision_choice 'E' is not A, B, C, D or blank."]},
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    def post(self, request):
        form = PredictionImportForm(
            data=_form_data(request, PredictionImportForm), files=request.FILES
        )
        run = actions.run_import(form, user=request.user)
        return run_response(selectors.run_get(run_id=run.pk), status=status.HTTP_201_CREATED)
