"""A study's report over REST (/api/baseline/studies/<id>/report/)."""

from django.db.models import Max
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from core.api import ERROR

from .. import actions, selectors
from ..actions import REPORT_BOUNDS, fits_columns
from ..forms import ReportForm
from ..models import BaselineReport
from ..report import report_rows
from . import examples
from .common import ADMIN_ERRORS, BaselineAdminApi, form_data, study_or_404


class ReportInputSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    n_boot = serializers.IntegerField(min_value=0)
    n_permutations = serializers.IntegerField(min_value=0)


class ReportRowSerializer(serializers.Serializer):
    section = serializers.CharField()
    statistic = serializers.CharField()
    estimate = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text=", ".join(BaselineReport.Status.values))
    seed = serializers.IntegerField()
    n_boot = serializers.IntegerField()
    n_permutations = serializers.IntegerField()
    error = serializers.CharField()
    requested_by = serializers.CharField(source="requested_by.username")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    results = serializers.SerializerMethodField()
    rows = serializers.SerializerMethodField()

    def get_results(self, report) -> dict | None:
        """Every statistic of App. J's report (null until it is done)."""
        return report.results if report.status == BaselineReport.Status.DONE else None

    @extend_schema_field(ReportRowSerializer(many=True))
    def get_rows(self, report):
        """The report CSV's rows (section, statistic, estimate, ci_low, ci_high)."""
        if report.status != BaselineReport.Status.DONE:
            return []
        return [
            {"section": s, "statistic": n, "estimate": v, "ci_low": lo, "ci_high": hi}
            for s, n, v, lo, hi in report_rows(report.results)
        ]


def replayed_report(study, data: dict) -> BaselineReport | None:
    """The latest report, when it was asked with these parameters, has not failed, and no
    participant has finalized since: computing again would give the same numbers."""
    latest = selectors.latest_report(study=study)
    if latest is None or latest.status == BaselineReport.Status.FAILED:
        return None
    if (latest.seed, latest.n_boot, latest.n_permutations) != (
        data["seed"],
        data["n_boot"],
        data["n_permutations"],
    ):
        return None
    last_final = study.participants.aggregate(at=Max("finalized_at"))["at"]
    if last_final is not None and last_final > latest.created_at:
        return None
    return latest


class ReportApi(BaselineAdminApi):
    @extend_schema(
        summary="The study's latest report",
        description="Its status (pending, running, done, failed); when done, every statistic "
        "(`results`) and the report CSV's rows (`rows`: section, statistic, estimate, "
        "ci_low, ci_high). 404 before any report is asked for.",
        responses={200: ReportSerializer, 404: ERROR, **ADMIN_ERRORS},
        examples=examples.REPORT_GET,
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        latest = selectors.latest_report(study=study)
        if latest is None:
            raise NotFound("No report has been asked for yet.")
        return Response(ReportSerializer(latest).data)

    @extend_schema(
        summary="Compute the report",
        description="Queues the App. J report over the finalized participants (at least "
        "two; else 400) on a Celery worker: poll GET until `status` is done. 201 with the "
        "queued report; the same request again, while nobody has finalized since, answers "
        "200 with that report instead of computing it twice.",
        request=ReportInputSerializer,
        responses={
            201: ReportSerializer,
            200: ReportSerializer,
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=examples.REPORT_POST,
    )
    def post(self, request, study_id: int):
        study = study_or_404(study_id)
        form = ReportForm(form_data(request), study=study)
        fits_columns(form, REPORT_BOUNDS)
        replay = replayed_report(study, form.cleaned_data)
        if replay is not None:
            return Response(ReportSerializer(replay).data)
        report = actions.report_request(form, user=request.user, study=study)
        return Response(ReportSerializer(report).data, status=status.HTTP_201_CREATED)
