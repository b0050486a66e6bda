"""Corpus imports over REST, for admins: upload files as an import job, poll the job."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from annotation.corpus.api import CorpusAdminApi
from annotation.corpus_import import actions, selectors
from annotation.corpus_import.forms import CorpusImportForm
from annotation.corpus_import.serializers import (
    ImportJobCreateSerializer,
    ImportJobListSerializer,
    ImportJobSerializer,
)
from core.api import action_refused_response
from core.role_before_body import RoleBeforeBody


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
class ImportJobListApi(RoleBeforeBody, CorpusAdminApi, generics.ListAPIView):
    serializer_class = ImportJobListSerializer
    # Uploads only; a person without the role is refused (403) before the body is read.
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        return selectors.import_job_list()

    def post(self, request):
        # The page's form validates the upload (``ImportJobCreateSerializer`` documents it).
        form = CorpusImportForm(request.data, request.FILES)
        try:
            job = actions.import_job_create(form, user=request.user)
        except actions.ActionRefused as refused:
            return action_refused_response(refused)
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
