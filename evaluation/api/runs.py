"""Evaluation runs over REST (/api/evaluation/runs/), for admins as the pages: list them
with their progress, launch one with the page's form, see one, and resume, retry or
cancel one as the run page's buttons do.
"""

from django.db.models import Case, CharField, F, Value, When
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

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
from core.llm_runs.forms import RunResumeForm
from core.roles import HasRole, Role
from core.text_rules import NAME, NOTE

from .. import actions, selectors
from ..forms import ITEM_SET_CHOICES, EvaluationRunForm
from ..models import LABEL_MAX, EvaluationRun, Setting
from . import examples
from .common import form_fields

IMPORTED = "imported"


#: The run states the API names: the framework's, and ``imported`` for a run of imported
#: predictions (stored finished, told apart by its origin), as the API always named it.
API_STATUSES = (*EvaluationRun.Status.values, IMPORTED)


def api_status_expression():
    """The API's status of each run in a queryset (for its ``?status=`` filter)."""
    return Case(
        When(origin=EvaluationRun.Origin.IMPORTED, then=Value(IMPORTED)),
        default=F("status"),
        output_field=CharField(),
    )


class ApiStatusField(serializers.CharField):
    """A run's status as the API names it (``API_STATUSES``)."""

    def __init__(self, **kwargs):
        super().__init__(source="*", **kwargs)

    def to_representation(self, run):
        return IMPORTED if run.is_imported else run.status


class EvaluationRunSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    label = serializers.CharField()
    setting = serializers.CharField(help_text=", ".join(Setting.values))
    origin = serializers.CharField()
    status = ApiStatusField(help_text=", ".join(API_STATUSES))
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
    cost_usd = serializers.DecimalField(
        source="progress.cost_usd",
        max_digits=12,
        decimal_places=6,
        help_text="What the run's calls cost so far, in USD, at the model's configured prices.",
    )
    budget_usd = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        allow_null=True,
        help_text="The run's budget in USD (null: none): it stops taking up items once its "
        "cost reaches it.",
    )
    stop_reason = serializers.CharField(
        help_text="Why a run stopped at budget (its budget, or a provider's monthly cap); "
        "empty otherwise."
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


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
    ListFilter("status", "api_status", choices=API_STATUSES),
    ListFilter("setting", "setting", choices=tuple(Setting.values)),
    ListFilter("origin", "origin", choices=tuple(EvaluationRun.Origin.values)),
    ListFilter("label", "label", description="Only runs with exactly this model label."),
]
RUN_ORDERINGS = {"id": "pk", "created_at": "created_at", "label": "label", "status": "status"}


def run_list(request, view) -> Response:
    return list_response(
        request,
        view,
        selectors.run_queryset().annotate(api_status=api_status_expression()),
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
    "examples": examples.RUN_LIST,
}


class EvaluationRunDetailApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="One evaluation run's progress",
        description="The run and its progress counts. The ETag names the run's state "
        "(status, start, end); send it as If-Match with a resume.",
        responses={200: EvaluationRunSerializer, 403: ERROR, 404: ERROR},
        examples=examples.EVALUATION_RUN_DETAIL_GET,
    )
    def get(self, request, run_id: int):
        return run_response(run_or_404(run_id))


BUDGET_FIELD = serializers.DecimalField(
    max_digits=12,
    decimal_places=2,
    required=False,
    allow_null=True,
    help_text="Optional budget in USD: the run stops taking up items once its recorded cost "
    "reaches it (status stopped_at_budget, stop_reason says why); resume it with a new "
    "budget. Absent or null: no budget.",
)

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
        "budget_usd": BUDGET_FIELD,
    },
)

RESUME_REQUEST = inline_serializer(
    "EvaluationRunResume",
    {
        "budget_usd": serializers.DecimalField(
            max_digits=12,
            decimal_places=2,
            required=False,
            allow_null=True,
            help_text="Only for a run stopped at budget: its new budget in USD, above what "
            "it has cost so far. Absent, null or blank: the run goes on with no budget (the "
            "old one is not kept). Refused for any other run.",
        )
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
        examples=examples.EVALUATION_RUN_LIST_POST,
    )
    def post(self, request):
        form = EvaluationRunForm(data=form_fields(request, EvaluationRunForm), files=request.FILES)
        run = actions.run_launch(form, user=request.user)
        return run_response(selectors.run_get(run_id=run.pk), status=status.HTTP_201_CREATED)


def _requeue(request, run_id: int, action, **kwargs) -> Response:
    """Resume or retry: ``{"queued": n, "run": ...}`` with the run's new ETag."""
    run = run_or_404(run_id)
    require_fresh(request, run_tag(run))
    queued = action(run_id=run.pk, **kwargs)
    run = selectors.run_get(run_id=run.pk)
    response = Response({"queued": queued, "run": EvaluationRunSerializer(run).data})
    response["ETag"] = run_tag(run)
    return response


def _queued_schema(name: str, examples_list, request=None, **kwargs):
    return extend_schema(
        request=request,
        parameters=[IF_MATCH],
        responses={
            200: inline_serializer(
                name, {"queued": serializers.IntegerField(), "run": EvaluationRunSerializer()}
            ),
            400: ERROR,
            403: ERROR,
            404: ERROR,
            412: ERROR,
        },
        examples=examples_list,
        **kwargs,
    )


class EvaluationRunResumeApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @_queued_schema(
        "EvaluationRunResumed",
        examples.EVALUATION_RUN_RESUME_POST,
        summary="Resume a run",
        description="Queues again every item without a stored response (waiting, "
        "cancelled, interrupted, failed calls), as the run page's Resume button; answered "
        "items are never asked twice. A run with nothing left to ask, an imported, a "
        "pending or a cancelling run is a 400 with the reason. With If-Match, a run whose "
        "state changed since that read answers 412.\n\n"
        "A run stopped at budget (its budget or its provider's monthly cap reached) "
        "resumes with the budget_usd sent (absent, null or blank: no budget; never the old "
        "one): its waiting items are queued, failed ones wait for a retry. A budget the run "
        "has already spent, or a monthly cap still reached, is a 400 saying so. budget_usd "
        "sent to resume any other run is a 400.",
        request={"application/json": RESUME_REQUEST, "multipart/form-data": RESUME_REQUEST},
    )
    def post(self, request, run_id: int):
        form = RunResumeForm(data=form_fields(request, RunResumeForm))
        return _requeue(request, run_id, actions.run_resume, form=form)


class EvaluationRunRetryApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @_queued_schema(
        "EvaluationRunRetried",
        examples.EVALUATION_RUN_RETRY_POST,
        summary="Retry a run's failed items",
        description="Queues again only the items whose call failed, as the run page's "
        "Retry button; every other item keeps its state. A run without failed items, an "
        "imported, a pending, a cancelling or a cancelled run is a 400 with the reason. "
        "With If-Match, a run whose state changed since that read answers 412.",
    )
    def post(self, request, run_id: int):
        return _requeue(request, run_id, actions.run_retry)


class EvaluationRunCancelApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = (Role.ADMIN,)

    @extend_schema(
        summary="Cancel a run",
        description="Stops a pending, running or stopped-at-budget run, as the run page's "
        "Cancel button: "
        "items not yet asked are cancelled at once; an item whose call is in flight keeps "
        "its answer, and the run is cancelled once those end (status cancelling until "
        "then). Stored responses stay; a resume asks the rest. Any other run is a 400 "
        "with the reason. With If-Match, a run whose state changed since that read "
        "answers 412.",
        request=None,
        parameters=[IF_MATCH],
        responses={200: EvaluationRunSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 412: ERROR},
        examples=examples.EVALUATION_RUN_CANCEL_POST,
    )
    def post(self, request, run_id: int):
        run = run_or_404(run_id)
        require_fresh(request, run_tag(run))
        actions.run_cancel(run_id=run.pk)
        return run_response(selectors.run_get(run_id=run.pk))
