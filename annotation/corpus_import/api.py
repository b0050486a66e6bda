"""Corpus imports over REST, for admins: upload files as an import job, poll the job."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from annotation.corpus.api import CorpusAdminApi
from annotation.corpus_import import selectors, services
from annotation.corpus_import.serializers import (
    ImportJobCreateSerializer,
    ImportJobListSerializer,
    ImportJobSerializer,
)
from core.tasks import enqueue_on_commit


@extend_schema_view(
    get=extend_schema(summary="Recent import jobs", responses=ImportJobListSerializer(many=True)),
    post=extend_schema(
        summary="Upload corpus files; a worker imports them",
        description=(
            "Creates an import job holding the files and queues it. Poll the job until its "
            "status is `succeeded` or `failed`; a file with any error imports nothing, and "
            "neither does a change to a reviewed, edited, audited or frozen record unless "
            "`as_new_versions` adds a changed profile as its next version for review."
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
            files=[(f.name, f.read()) for f in upload.validated_data["files"]],
            user=request.user,
            as_new_versions=upload.validated_data["as_new_versions"],
        )
        # Queued once the job row is committed, so the worker can read it. Without a
        # broker the job stays pending, which is what a client polling it will see.
        enqueue_on_commit("annotation.run_import_job", job.pk, what=f"Import job {job.pk}")
        return Response(
            ImportJobSerializer(selectors.import_job_get(job_id=job.pk)).data,
            status=status.HTTP_202_ACCEPTED,
        )


@extend_schema_view(get=extend_schema(summary="An import job's status, summary and errors"))
class ImportJobDetailApi(CorpusAdminApi, generics.RetrieveAPIView):
    serializer_class = ImportJobSerializer

    def get_object(self):
        job = selectors.import_job_get(job_id=self.kwargs["job_id"])
        self.check_object_permissions(self.request, job)
        return job
