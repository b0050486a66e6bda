"""Memory generation runs over REST, admin only (seed 000 App. B.5): list, create,
start, watch (progress per character and life-stage bin), cancel, resume, retry, and a
run's batches.

Model names and errors: CORPUS_ADMINS only, reads and writes.
"""

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus.api import CorpusAdminApi
from annotation.memory_generation import actions
from annotation.memory_generation.forms.runs import (
    DEFAULT_TIER_SHARES,
    MAX_CONCURRENCY,
    TIERS,
    MemoryRunForm,
)
from annotation.memory_generation.models import MemoryBatch, MemoryRun
from annotation.memory_generation.selectors import runs as selectors

# The run services are h3's; until the branches merge they may be missing here.
# Lead: at the merge, keep only the two imports.
from annotation.memory_generation.services import runs as run_services
from core.api import form_error_response
from core.text_rules import NAME, NOTE, SerializerTextRules

# The form's own default when no provider is configured (the service then says so).
DEFAULT_CONCURRENCY = MemoryRunForm.base_fields["concurrency"].initial
RUN_STATUSES = ", ".join(MemoryRun.Status.values)
BATCH_STATUSES = ", ".join(MemoryBatch.Status.values)


class BinCellSerializer(serializers.Serializer):
    bin = serializers.CharField(help_text="Life-stage bin key.")
    label = serializers.CharField()
    filled = serializers.IntegerField(help_text="Slots with a stored memory.")
    total = serializers.IntegerField(help_text="Slots the run asks for in this bin.")


class BatchCountsSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    running = serializers.IntegerField()
    succeeded = serializers.IntegerField()
    failed = serializers.IntegerField()
    cancelled = serializers.IntegerField()


class CharacterProgressSerializer(serializers.Serializer):
    character = serializers.CharField()
    bin_cells = BinCellSerializer(many=True)
    filled = serializers.IntegerField()
    total = serializers.IntegerField()
    batches = BatchCountsSerializer()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)


class FailedBatchSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    index = serializers.IntegerField()
    character = serializers.CharField(source="character__key")
    first_age = serializers.IntegerField()
    last_age = serializers.IntegerField()
    filled = serializers.IntegerField()
    target = serializers.IntegerField()
    error_kind = serializers.CharField()
    error_message = serializers.CharField()
    attempts = serializers.IntegerField()


class MemoryRunProgressSerializer(serializers.Serializer):
    """``selectors.memory_run_progress``."""

    slots_total = serializers.IntegerField()
    slots_filled = serializers.IntegerField()
    percent = serializers.IntegerField()
    batches_total = serializers.IntegerField()
    batches_done = serializers.IntegerField()
    batches_running = serializers.IntegerField()
    batches_failed = serializers.IntegerField()
    batches_by_status = BatchCountsSerializer()
    characters = CharacterProgressSerializer(many=True)
    bin_totals = BinCellSerializer(many=True)
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)
    calls = serializers.IntegerField()
    failed_calls = serializers.IntegerField()
    failed_batches = FailedBatchSerializer(many=True)


RUN_FIELDS = [
    "id",
    "status",
    "provider",
    "model_name",
    "concurrency",
    "seed",
    "tier_shares",
    "prompt",
    "note",
    "created_by",
    "created_at",
    "started_at",
    "finished_at",
    "budget_usd",
    "stop_reason",
]


class MemoryRunListSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True, help_text=f"One of {RUN_STATUSES}.")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    prompt = serializers.SlugRelatedField(
        slug_field="number", read_only=True, help_text="Memory prompt version number."
    )
    tier_shares = serializers.DictField(child=serializers.FloatField())
    batches_total = serializers.IntegerField(read_only=True)
    batches_done = serializers.IntegerField(read_only=True)
    batches_failed = serializers.IntegerField(read_only=True)
    memories_stored = serializers.IntegerField(read_only=True)

    class Meta:
        model = MemoryRun
        fields = [
            *RUN_FIELDS,
            "batches_total",
            "batches_done",
            "batches_failed",
            "memories_stored",
        ]
        read_only_fields = fields


class MemoryRunSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True, help_text=f"One of {RUN_STATUSES}.")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    prompt = serializers.SlugRelatedField(
        slug_field="number", read_only=True, help_text="Memory prompt version number."
    )
    tier_shares = serializers.DictField(child=serializers.FloatField())
    plans = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    # Set by _run_response from selectors.memory_run_progress.
    progress = MemoryRunProgressSerializer(read_only=True)

    class Meta:
        model = MemoryRun
        fields = [*RUN_FIELDS, "plans", "progress"]
        read_only_fields = fields


class MemoryRunCreateSerializer(SerializerTextRules, serializers.Serializer):
    plans = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        allow_empty=False,
        help_text="Plan ids; each plan's profile must be frozen.",
    )
    model_name = serializers.CharField(
        max_length=NAME,
        required=False,
        allow_blank=True,
        default="",
        help_text="Empty: the provider's default.",
    )
    concurrency = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_CONCURRENCY, allow_null=True, default=None
    )
    seed = serializers.IntegerField(required=False, min_value=0, default=0)
    tier_shares = serializers.DictField(
        child=serializers.FloatField(min_value=0, max_value=1),
        required=False,
        allow_null=True,
        default=None,
        help_text=f"ABCD shares adding up to 1; default {DEFAULT_TIER_SHARES}.",
    )
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")
    budget_usd = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        required=False,
        allow_null=True,
        default=None,
        help_text="USD; the run stops taking up batches once its recorded cost reaches it.",
    )
    start = serializers.BooleanField(
        required=False, default=True, help_text="Start at once (false: leave it pending)."
    )
    accept_near_duplicates = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Launch although the plans' characters include a near-duplicate pair "
        "(the distinctness check); without it such a launch is refused with 400 naming "
        "the pairs.",
    )


class MemoryBatchSerializer(serializers.ModelSerializer):
    status = serializers.CharField(read_only=True, help_text=f"One of {BATCH_STATUSES}.")
    character = serializers.SlugRelatedField(slug_field="key", read_only=True)
    filled = serializers.IntegerField(read_only=True, help_text="Slots with a stored memory.")
    target = serializers.IntegerField(read_only=True, help_text="Slots asked for.")

    class Meta:
        model = MemoryBatch
        fields = [
            "id",
            "index",
            "plan",
            "character",
            "life_stage",
            "first_age",
            "last_age",
            "status",
            "filled",
            "target",
            "attempts",
            "error_kind",
            "error_message",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "updated_at",
        ]
        read_only_fields = fields


def _launch_form_data(body) -> dict:
    """The launch form's fields from an API body: ``tier_shares`` spread over the four
    tier fields, the provider's concurrency and the default shares when left out."""
    shares = body.get("tier_shares")
    shares = DEFAULT_TIER_SHARES if shares is None else shares
    if not isinstance(shares, dict):
        shares = {}  # each tier field then says it is required
    concurrency = body.get("concurrency")
    if concurrency is None:
        config = run_services.memory_provider_config()
        concurrency = config.concurrency if config is not None else DEFAULT_CONCURRENCY
    return {
        "plans": body.get("plans"),
        "model_name": body.get("model_name") or "",
        "concurrency": concurrency,
        "seed": body.get("seed", 0),
        **{f"tier_{tier.lower()}": shares.get(tier) for tier in TIERS},
        "note": body.get("note") or "",
        "budget_usd": body.get("budget_usd"),
        "accept_near_duplicates": body.get("accept_near_duplicates", False),
    }


def _run_response(run_id: int, status_code=status.HTTP_200_OK) -> Response:
    run = selectors.memory_run_get(run_id=run_id)
    run.progress = selectors.memory_run_progress(run=run)
    return Response(MemoryRunSerializer(run).data, status=status_code)


_conflict = OpenApiResponse(
    inline_serializer("MemoryRunConflict", {"detail": serializers.CharField()}),
    description="The run's state does not allow this action; `detail` says why.",
)


@extend_schema_view(
    get=extend_schema(
        summary="Memory generation runs, newest first, with batch and memory counts",
        responses=MemoryRunListSerializer(many=True),
    ),
    post=extend_schema(
        summary="Create (and by default start) a memory generation run",
        description=(
            "Makes the run's batches from each plan's quotas (2–5-year windows inside one "
            "life-stage bin). Refused with 400 and a `detail` for an unknown plan, a plan "
            "whose profile is not frozen, no configured provider or tier shares that do "
            "not add up to 1; nothing is created then."
        ),
        request=MemoryRunCreateSerializer,
        responses={201: MemoryRunSerializer},
    ),
)
class MemoryRunListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = MemoryRunListSerializer

    def get_queryset(self):
        return selectors.memory_run_list()

    def post(self, request):
        # The page's form validates the launch (``MemoryRunCreateSerializer`` documents
        # it); what a script leaves out takes the page's defaults.
        if not hasattr(request.data, "get"):
            raise ValidationError({"detail": 'Send an object such as {"plans": [1]}.'})
        start = serializers.BooleanField().to_internal_value(request.data.get("start", True))
        form = MemoryRunForm(_launch_form_data(request.data))
        try:
            run = actions.memory_run_launch(form, user=request.user, start=start)
        except actions.ActionRefused as refused:
            if refused.cause is not None:
                raise ValidationError({"detail": str(refused.cause)}) from None
            return form_error_response(refused.form)
        return _run_response(run.pk, status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(
        summary="A memory run with its progress per character and life-stage bin",
        responses=MemoryRunSerializer,
    )
)
class MemoryRunDetailApi(CorpusAdminApi, APIView):
    def get(self, request, run_id):
        return _run_response(run_id)


class MemoryRunActionApi(CorpusAdminApi, APIView):
    """POST-only: one run-level service call; 409 when the run's state refuses it."""

    action_name = ""

    def post(self, request, run_id):
        get_object_or_404(MemoryRun, pk=run_id)  # 404 first
        try:
            RUN_ACTIONS[self.action_name](run_id=run_id, user=request.user)
        except actions.ActionRefused as refused:
            return Response({"detail": " ".join(refused.messages)}, status=status.HTTP_409_CONFLICT)
        return _run_response(run_id)


# The run page's buttons call the same functions (``annotation.memory_generation.actions``).
RUN_ACTIONS = {
    "run_start": actions.memory_run_start,
    "run_cancel": actions.memory_run_cancel,
    "run_resume": actions.memory_run_resume,
    "run_retry_failed": actions.memory_run_retry,
}


def _action(name: str, summary: str, description: str):
    view = type(
        f"MemoryRun{name.title().replace('_', '')}Api",
        (MemoryRunActionApi,),
        {"action_name": name, "__doc__": description},
    )
    return extend_schema_view(
        post=extend_schema(
            summary=summary,
            description=description,
            request=None,
            responses={200: MemoryRunSerializer, 409: _conflict},
        )
    )(view)


MemoryRunStartApi = _action(
    "run_start", "Start a pending memory run", "Dispatches up to `concurrency` batches."
)
MemoryRunCancelApi = _action(
    "run_cancel",
    "Cancel a running memory run",
    "Batches stop after their current memory; stored memories stay.",
)


class _ResumeInput(serializers.Serializer):
    budget_usd = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        required=False,
        allow_null=True,
        help_text="For a run stopped at a spending limit: its new budget in USD (absent, "
        "null or blank: no budget; never the old one).",
    )


@extend_schema_view(
    post=extend_schema(
        summary="Resume a cancelled memory run, or one stopped at a spending limit",
        description="A cancelled run: unfinished batches are queued again and ask only for "
        "their empty slots. A run stopped at its budget or a monthly cap: its waiting "
        "batches are queued again with budget_usd as its budget (absent, null or blank: "
        "none; never the old one); refused (409) while the limit would stop it again.",
        request=_ResumeInput,
        responses={200: MemoryRunSerializer, 409: _conflict},
    )
)
class MemoryRunResumeApi(MemoryRunActionApi):
    def post(self, request, run_id):
        get_object_or_404(MemoryRun, pk=run_id)  # 404 first
        budget = request.data.get("budget_usd") if hasattr(request.data, "get") else None
        try:
            actions.memory_run_resume(run_id=run_id, user=request.user, budget_usd=budget or None)
        except actions.ActionRefused as refused:
            return Response({"detail": " ".join(refused.messages)}, status=status.HTTP_409_CONFLICT)
        return _run_response(run_id)


MemoryRunRetryApi = _action(
    "run_retry_failed",
    "Retry a memory run's failed batches",
    "Failed batches are queued again and ask only for their empty slots.",
)


@extend_schema_view(
    get=extend_schema(
        summary="A memory run's batches, optionally of one status (e.g. the failed ones)",
        parameters=[OpenApiParameter("status", str, enum=list(MemoryBatch.Status.values))],
    )
)
class MemoryBatchListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = MemoryBatchSerializer

    def get_queryset(self):
        get_object_or_404(MemoryRun, pk=self.kwargs["run_id"])
        wanted = self.request.query_params.get("status") or None
        if wanted is not None and wanted not in MemoryBatch.Status.values:
            raise ValidationError({"status": f"must be one of {BATCH_STATUSES}"})
        return selectors.memory_batch_list(run_id=self.kwargs["run_id"], status=wanted)


urlpatterns = [
    path("runs/", MemoryRunListApi.as_view(), name="run-list"),
    path("runs/<int:run_id>/", MemoryRunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/batches/", MemoryBatchListApi.as_view(), name="run-batches"),
    path("runs/<int:run_id>/start/", MemoryRunStartApi.as_view(), name="run-start"),
    path("runs/<int:run_id>/cancel/", MemoryRunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/resume/", MemoryRunResumeApi.as_view(), name="run-resume"),
    path("runs/<int:run_id>/retry/", MemoryRunRetryApi.as_view(), name="run-retry"),
]
