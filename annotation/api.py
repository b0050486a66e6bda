"""The corpus over REST: read for the roles that may see it, imports for admins."""

import logging

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from kombu.exceptions import OperationalError as BrokerUnavailable
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from heartbench_site.roles import CORPUS_ADMINS, CORPUS_READERS, HasRole

from . import selectors, services
from .celery_tasks import run_import_job
from .life_stages import LIFE_STAGE_KEYS
from .serializers import (
    CharacterDetailSerializer,
    CharacterSerializer,
    ImportJobCreateSerializer,
    ImportJobListSerializer,
    ImportJobSerializer,
    MemoryFilterSerializer,
    MemorySerializer,
    ScenarioFilterSerializer,
    ScenarioSerializer,
)

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
