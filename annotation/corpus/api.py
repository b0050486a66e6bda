"""The corpus over REST: read for the roles that may see it, imports for admins."""

import logging

from django.db import transaction
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from kombu.exceptions import OperationalError as BrokerUnavailable
from rest_framework import generics, status
from rest_framework import serializers as drf_serializers
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.corpus import selectors
from annotation.corpus.life_stages import LIFE_STAGE_KEYS
from annotation.corpus.serializers import (
    CharacterDetailSerializer,
    CharacterSerializer,
    GenerationRunCreateSerializer,
    GenerationRunListSerializer,
    GenerationRunSerializer,
    GenerationUnitFilterSerializer,
    GenerationUnitSerializer,
    ImportJobCreateSerializer,
    ImportJobListSerializer,
    ImportJobSerializer,
    MemoryFilterSerializer,
    MemorySerializer,
    ScenarioFilterSerializer,
    ScenarioSerializer,
)
from annotation.corpus_import import services
from annotation.corpus_import.celery_tasks import run_import_job
from annotation.generation import run_selectors as generation_ui_selectors
from annotation.generation import services as generation_services
from annotation.generation.models import GenerationUnit
from heartbench_site.base.roles import CORPUS_ADMINS, CORPUS_READERS, HasRole

logger = logging.getLogger(__name__)


class CorpusReadApi:
    permission_classes = [HasRole]
    allowed_roles = CORPUS_READERS


class CorpusAdminApi:
    permission_classes = [HasRole]
    allowed_roles = CORPUS_ADMINS


@extend_schema_view(get=extend_schema(summary="Characters with their current profile version"))
class CharacterListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = CharacterSerializer

    def get_queryset(self):
        return selectors.character_list()


@extend_schema_view(get=extend_schema(summary="A character with every profile version"))
class CharacterDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = CharacterDetailSerializer
    lookup_field = "key"

    def get_queryset(self):
        return selectors.character_list()


@extend_schema_view(
    get=extend_schema(
        summary="Memories, optionally of one character and one life stage",
        parameters=[
            OpenApiParameter("character", str, description="Character key, e.g. CHAR_06."),
            OpenApiParameter("life_stage", str, enum=LIFE_STAGE_KEYS),
        ],
    )
)
class MemoryListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = MemorySerializer

    def get_queryset(self):
        params = MemoryFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return selectors.memory_list(
            character_key=params.validated_data.get("character"),
            life_stage=params.validated_data.get("life_stage"),
        )


@extend_schema_view(get=extend_schema(summary="One memory with its ten schema fields"))
class MemoryDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = MemorySerializer
    lookup_field = "memory_id"

    def get_queryset(self):
        return selectors.memory_list()


@extend_schema_view(
    get=extend_schema(
        summary="Scenarios, optionally of one life stage",
        parameters=[OpenApiParameter("stage", str, enum=LIFE_STAGE_KEYS)],
    )
)
class ScenarioListApi(CorpusReadApi, generics.ListAPIView):
    serializer_class = ScenarioSerializer

    def get_queryset(self):
        params = ScenarioFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return selectors.scenario_list(stage=params.validated_data.get("stage"))


@extend_schema_view(get=extend_schema(summary="One scenario in the four-component schema"))
class ScenarioDetailApi(CorpusReadApi, generics.RetrieveAPIView):
    serializer_class = ScenarioSerializer
    lookup_field = "scenario_id"

    def get_queryset(self):
        return selectors.scenario_list()


@extend_schema_view(
    get=extend_schema(summary="Recent import jobs", responses=ImportJobListSerializer(many=True)),
    post=extend_schema(
        summary="Upload corpus files; a worker imports them",
        description=(
            "Creates an import job holding the files and queues it. Poll the job until its "
            "status is `succeeded` or `failed`; a file with any error imports nothing."
        ),
        request={"multipart/form-data": ImportJobCreateSerializer},
        responses={202: ImportJobSerializer},
    ),
)
class ImportJobListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = ImportJobListSerializer
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.import_job_list()

    def post(self, request):
        upload = ImportJobCreateSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        job = services.import_job_create(
            files=[(f.name, f.read()) for f in upload.validated_data["files"]], user=request.user
        )
        # Queued once the job row is committed, so the worker can read it.
        transaction.on_commit(lambda: _enqueue(job.pk))
        return Response(
            ImportJobSerializer(selectors.import_job_get(job_id=job.pk)).data,
            status=status.HTTP_202_ACCEPTED,
        )


def _enqueue(job_id: int) -> None:
    try:
        run_import_job.delay(job_id)
    except BrokerUnavailable:
        # The job stays pending, which is what a client polling it will see.
        logger.exception("import job %s is saved but could not be queued", job_id)


@extend_schema_view(get=extend_schema(summary="An import job's status, summary and errors"))
class ImportJobDetailApi(CorpusAdminApi, generics.RetrieveAPIView):
    serializer_class = ImportJobSerializer

    def get_object(self):
        job = selectors.import_job_get(job_id=self.kwargs["job_id"])
        self.check_object_permissions(self.request, job)
        return job


# --- Candidate generation (admin only) --------------------------------------------------
# !!! BLINDING !!!  Families and model names: CORPUS_ADMINS only, reads and writes.


def _run_response(run_id: int, status_code=status.HTTP_200_OK) -> Response:
    run = generation_ui_selectors.generation_run_get(run_id=run_id)
    return Response(GenerationRunSerializer(run).data, status=status_code)


@extend_schema_view(
    get=extend_schema(
        summary="Generation runs, newest first, with their unit counts",
        responses=GenerationRunListSerializer(many=True),
    ),
    post=extend_schema(
        summary="Launch a generation run",
        description=(
            "Creates a run over every chosen (character, scenario) pair × family (omit "
            "`characters`/`scenarios` for all) and queues its units. Each character needs a "
            "frozen profile version, and each family a configured provider; otherwise "
            "nothing is created and the 400 response says why. Poll the run for progress."
        ),
        request=GenerationRunCreateSerializer,
        responses={201: GenerationRunSerializer},
    ),
)
class GenerationRunListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = GenerationRunListSerializer

    def get_queryset(self):
        return generation_ui_selectors.generation_run_list()

    def post(self, request):
        params = GenerationRunCreateSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        try:
            run = generation_services.generation_run_create(
                user=request.user, **params.validated_data
            )
        except generation_services.GenerationError as error:
            raise ValidationError({"detail": str(error)}) from error
        try:
            generation_services.generation_run_start(run_id=run.pk)
        except BrokerUnavailable:
            # The run is saved and shown as running; its units wait for a broker.
            logger.exception("generation run %s is saved but its units could not be queued", run.pk)
        return _run_response(run.pk, status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(summary="A generation run with its progress per family and stage")
)
class GenerationRunDetailApi(CorpusAdminApi, generics.RetrieveAPIView):
    serializer_class = GenerationRunSerializer

    def get_object(self):
        run = generation_ui_selectors.generation_run_get(run_id=self.kwargs["run_id"])
        self.check_object_permissions(self.request, run)
        return run


class GenerationRunActionApi(CorpusAdminApi, APIView):
    """POST-only: one run-level service call; 409 when the run's state refuses it."""

    action = None

    def post(self, request, run_id):
        generation_ui_selectors.generation_run_get(run_id=run_id)  # 404 first
        try:
            type(self).action(run_id=run_id)
        except generation_services.GenerationError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return _run_response(run_id)


_conflict = OpenApiResponse(
    inline_serializer("GenerationConflict", {"detail": drf_serializers.CharField()}),
    description="The run's state does not allow this action; `detail` says why.",
)


@extend_schema_view(
    post=extend_schema(
        summary="Cancel a pending or running generation run",
        description="Waiting units are cancelled at once; units in flight stop at their next "
        "stage boundary. Finished candidates are kept.",
        request=None,
        responses={200: GenerationRunSerializer, 409: _conflict},
    )
)
class GenerationRunCancelApi(GenerationRunActionApi):
    action = staticmethod(generation_services.generation_run_cancel)


@extend_schema_view(
    post=extend_schema(
        summary="Queue a run's failed units again",
        description="Only failed units are retried; each resumes at the stage it reached.",
        request=None,
        responses={200: GenerationRunSerializer, 409: _conflict},
    )
)
class GenerationRunRetryApi(GenerationRunActionApi):
    action = staticmethod(generation_services.generation_run_retry_failed)


@extend_schema_view(
    get=extend_schema(
        summary="A run's units, optionally of one status (e.g. the failed ones)",
        parameters=[OpenApiParameter("status", str, enum=[s.value for s in GenerationUnit.Status])],
    )
)
class GenerationUnitListApi(CorpusAdminApi, generics.ListAPIView):
    serializer_class = GenerationUnitSerializer

    def get_queryset(self):
        generation_ui_selectors.generation_run_get(run_id=self.kwargs["run_id"])
        params = GenerationUnitFilterSerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        return generation_ui_selectors.generation_unit_list(
            run_id=self.kwargs["run_id"], status=params.validated_data.get("status")
        )
