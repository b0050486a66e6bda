"""Export jobs over REST, for admins (the export page's role), under /api/exports/:
list the jobs, start a build, follow its progress, download the stored zip with its
SHA-256 in ``X-Checksum-SHA256`` and ``Digest``."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adjudication.export import actions, jobs
from adjudication.export.models import ExportJob
from adjudication.export.views import job_file_response
from core.api import (
    ERROR,
    ListFilter,
    action_refused_response,
    etag,
    list_parameters,
    list_response,
    paginated_schema,
    with_etag,
)
from core.roles import HasRole, Role

MESSAGE = inline_serializer("ExportJobMessage", {"detail": serializers.CharField()})


class ExportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.get_username", default=None)
    percent = serializers.IntegerField(read_only=True)
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = ExportJob
        fields = (
            "id",
            "kind",
            "status",
            "done",
            "total",
            "step",
            "percent",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "size",
            "sha256",
            "error",
            "download_url",
        )

    def get_download_url(self, job) -> str | None:
        if job.status != ExportJob.Status.FINISHED:
            return None
        request = self.context.get("request")
        path = f"/api/exports/{job.pk}/download/"
        return request.build_absolute_uri(path) if request is not None else path


class ExportJobStartSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=ExportJob.Kind.choices,
        default=ExportJob.Kind.FINAL_SET,
        help_text="`final_set` (default) or `statistics`.",
    )


FILTERS = [
    ListFilter("kind", "kind", choices=tuple(ExportJob.Kind.values), description="Export kind."),
    ListFilter("status", "status", choices=tuple(ExportJob.Status.values), description="Status."),
    ListFilter("created_by", "created_by__username", description="Username who started it."),
]
ORDERINGS = {"id": "pk", "created_at": "created_at", "finished_at": "finished_at", "size": "size"}

JOB_EXAMPLE = {
    "id": 12,
    "kind": "final_set",
    "status": "finished",
    "done": 7,
    "total": 7,
    "step": "Finished",
    "percent": 100,
    "created_by": "admin",
    "created_at": "2026-12-05T08:00:00Z",
    "started_at": "2026-12-05T08:00:01Z",
    "finished_at": "2026-12-05T08:00:07Z",
    "size": 2483114,
    "sha256": "9f2c4d1e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d",
    "error": "",
    "download_url": "https://heartbench.example.org/api/exports/12/download/",
}
RUNNING_EXAMPLE = {
    **JOB_EXAMPLE,
    "status": "running",
    "done": 4,
    "step": "Writing the Parquet files and the dataset card",
    "percent": 57,
    "finished_at": None,
    "size": None,
    "sha256": "",
    "download_url": None,
}


def job_etag(job: ExportJob) -> str:
    return etag(job.pk, job.status, job.done, job.sha256)


class ExportAdminApi(APIView):
    permission_classes = [HasRole]
    allowed_roles = [Role.ADMIN]


class ExportJobListApi(ExportAdminApi):
    @extend_schema(
        summary="Export jobs",
        operation_id="exports_list",
        description=(
            "Every export job, newest first: kind, status and progress, who started it and "
            "when, the stored zip's size and SHA-256, and its download URL once finished."
        ),
        parameters=list_parameters(FILTERS, ORDERINGS),
        responses={200: paginated_schema(ExportJobSerializer), 400: ERROR, 403: MESSAGE},
        examples=[
            OpenApiExample(
                "A page of jobs",
                value={"count": 1, "next": None, "previous": None, "results": [JOB_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request):
        return list_response(
            request,
            self,
            jobs.export_job_list(),
            ExportJobSerializer,
            filters=FILTERS,
            orderings=ORDERINGS,
        )

    @extend_schema(
        summary="Start an export build",
        description=(
            "Queues a build of `kind` (`final_set`, or `statistics` where installed) for a "
            "Celery worker and answers 201 with the new job. While a build of that kind is "
            "queued or running, answers 200 with that job instead of starting another. "
            "Poll the job until `status` is `finished` (then download it) or `failed`."
        ),
        request=ExportJobStartSerializer,
        responses={201: ExportJobSerializer, 200: ExportJobSerializer, 400: ERROR, 403: MESSAGE},
        examples=[
            OpenApiExample("Build the final set", value={"kind": "final_set"}, request_only=True),
            OpenApiExample(
                "The job, queued or under way", value=RUNNING_EXAMPLE, response_only=True
            ),
        ],
    )
    def post(self, request):
        # The service checks the kind, with the page's message (400 naming `kind`).
        if not hasattr(request.data, "get"):
            return Response(
                {"detail": ['Send an object such as {"kind": "final_set"}.']},
                status=status.HTTP_400_BAD_REQUEST,
            )
        kind = request.data.get("kind", ExportJob.Kind.FINAL_SET)
        try:
            job, created = actions.export_job_start(kind=str(kind), user=request.user)
        except actions.ActionRefused as refused:
            return action_refused_response(refused)
        job = jobs.export_job_list().get(pk=job.pk)
        body = ExportJobSerializer(job, context={"request": request}).data
        return with_etag(
            Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK),
            job_etag(job),
        )


def _get_job(job_id) -> ExportJob | None:
    return jobs.export_job_list().filter(pk=job_id).first()


NOT_FOUND = {"detail": "No export job with this id."}


class ExportJobDetailApi(ExportAdminApi):
    @extend_schema(
        summary="An export job and its progress",
        description=(
            "Status, progress (`done` of `total` steps, `step` names the one under way, "
            "`percent`), the stored file's size and SHA-256 once finished, the error of a "
            "failed build. The `ETag` changes as the build moves on."
        ),
        responses={200: ExportJobSerializer, 403: MESSAGE, 404: MESSAGE},
        examples=[OpenApiExample("A finished job", value=JOB_EXAMPLE, response_only=True)],
    )
    def get(self, request, job_id):
        job = _get_job(job_id)
        if job is None:
            return Response(NOT_FOUND, status=status.HTTP_404_NOT_FOUND)
        body = ExportJobSerializer(job, context={"request": request}).data
        return with_etag(Response(body), job_etag(job))


class ExportJobDownloadApi(ExportAdminApi):
    @extend_schema(
        summary="Download an export job's zip",
        description=(
            "The stored zip of a finished job. `X-Checksum-SHA256` (hex) and `Digest` "
            "(`sha-256=` base64) carry its SHA-256, the job's `sha256`: check the bytes "
            "against it. A job not finished yet answers 409."
        ),
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The zip",
                examples=[
                    OpenApiExample("The zip's bytes", value="(binary: heartbench-final-set/...)")
                ],
            ),
            403: MESSAGE,
            404: MESSAGE,
            409: MESSAGE,
        },
    )
    def get(self, request, job_id):
        job = _get_job(job_id)
        if job is None:
            return Response(NOT_FOUND, status=status.HTTP_404_NOT_FOUND)
        if job.status != ExportJob.Status.FINISHED:
            return Response(
                {"detail": f"Export job {job.pk} is {job.status}: download it once finished."},
                status=status.HTTP_409_CONFLICT,
            )
        if jobs.job_file(job) is None:
            return Response(
                {"detail": f"Export job {job.pk}'s file is no longer stored: build it again."},
                status=status.HTTP_404_NOT_FOUND,
            )
        return job_file_response(job)
