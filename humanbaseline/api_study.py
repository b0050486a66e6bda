"""A study's people and results over REST (/api/baseline/studies/<id>/...), for admins:
participants (accounts made by the admin, progress), time on task (the payment export's
rows), the best model fixed before the report, and the report itself.

As in ``api.py``: the page's form validates, the page's service writes, same messages.
"""

from django.db.models import Max
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from core.actions import validated
from core.api import (
    ERROR,
    IF_MATCH,
    ListFilter,
    list_parameters,
    list_response,
    paginated_schema,
    require_fresh,
)

from . import actions, selectors
from .actions import REPORT_BOUNDS, fits_columns
from .api import (
    ADMIN_ERRORS,
    BaselineAdminApi,
    current_best_model,
    form_data,
    study_etag,
    study_or_404,
)
from .api_serializers import (
    BestModelChoiceSerializer,
    BestModelInputSerializer,
    ParticipantInputSerializer,
    ParticipantSerializer,
    ReportInputSerializer,
    ReportSerializer,
    TimeRowSerializer,
)
from .forms import BestModelForm, ParticipantAccountForm, ReportForm
from .models import BaselineReport, BestModelChoice, Participation

# --- Participants -------------------------------------------------------------------------

PARTICIPANT_FILTERS = [
    ListFilter("status", "status", choices=tuple(Participation.Status.values)),
    ListFilter("username", "user.username"),
]
PARTICIPANT_ORDERINGS = {
    "username": "user.username",
    "status": "status",
    "n_answered": "n_answered",
    "session_seconds": "session_seconds",
    "created_at": "created_at",
}
PARTICIPANT_EXAMPLE = {
    "id": 7,
    "username": "p-017",
    "status": "started",
    "enrolled_via": "admin",
    "consent_version": "v1",
    "consent_decided_at": "2026-12-05T08:01:00Z",
    "started_at": "2026-12-05T08:03:00Z",
    "finalized_at": None,
    "n_items": 150,
    "n_answered": 42,
    "item_seconds": 1260.5,
    "n_sessions": 1,
    "session_seconds": 1402.0,
    "created_at": "2026-12-05T08:00:00Z",
}


def participant_rows(study):
    participants = selectors.study_participants(study=study)
    return participants, {"n_items": study.n_items}


def participant_data(study, participation_pk: int) -> dict:
    rows, context = participant_rows(study)
    row = next(p for p in rows if p.pk == participation_pk)
    return ParticipantSerializer(row, context=context).data


def replayed_account(study, username: str, password: str) -> Participation | None:
    """The participation this very request already created (a retried submit): the
    account exists with this password and was enrolled in this study by an admin."""
    participation = (
        Participation.objects.filter(study=study, user__username=username, enrolled_via="admin")
        .select_related("user")
        .first()
    )
    if participation is not None and participation.user.check_password(password):
        return participation
    return None


class ParticipantsApi(BaselineAdminApi):
    @extend_schema(
        summary="A study's participants and their progress",
        description="Status, consent, items answered, time on items and work-session time "
        "(payment is by the hour, App. J). Participants never see each other.",
        parameters=list_parameters(PARTICIPANT_FILTERS, PARTICIPANT_ORDERINGS),
        responses={
            200: paginated_schema(ParticipantSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample(
                "One page",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [PARTICIPANT_EXAMPLE],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        rows, context = participant_rows(study)
        return list_response(
            request,
            self,
            rows,
            ParticipantSerializer,
            filters=PARTICIPANT_FILTERS,
            orderings=PARTICIPANT_ORDERINGS,
            context=context,
        )

    @extend_schema(
        summary="Create a participant account",
        description="As the study page: the admin makes the account (give the participant "
        "its password) and it is enrolled in the study; the participant then signs in with a "
        "browser (participants hold no API token). 201 with the participant; the same "
        "submit again answers 200 with the same participant. A taken username, a weak "
        "password or a closed study is a 400 with the page's message.",
        request=ParticipantInputSerializer,
        responses={
            201: ParticipantSerializer,
            200: ParticipantSerializer,
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample(
                "An account",
                value={"username": "p-017", "password": "a long passphrase 17"},
                request_only=True,
            ),
            OpenApiExample(
                "Enrolled",
                value={**PARTICIPANT_EXAMPLE, "status": "invited", "n_answered": 0},
                response_only=True,
            ),
        ],
    )
    def post(self, request, study_id: int):
        study = study_or_404(study_id)
        form = ParticipantAccountForm(form_data(request), study=study)
        validated(form)
        username, password = form.cleaned_data["username"], form.cleaned_data["password"]
        replay = replayed_account(study, username, password)
        if replay is not None:
            return Response(participant_data(study, replay.pk))
        participation = actions.participant_create(form, study=study)
        return Response(participant_data(study, participation.pk), status=status.HTTP_201_CREATED)


# --- Time on task -------------------------------------------------------------------------

TIME_FILTERS = [
    ListFilter("kind", "kind", choices=("item", "session")),
    ListFilter("participant", "participant"),
]
TIME_ORDERINGS = ["participant", "kind", "position", "seconds", "start", "end"]


def time_rows(study) -> list[dict]:
    """The payment export's rows (the page's time.csv): one per participant × item, then
    one per work session."""
    item_rows, sessions = selectors.time_rows(study=study)
    rows = [
        {
            "kind": "item",
            "participant": r.participation.user.get_username(),
            "position": r.position,
            "question_id": r.study_item.item.question_id,
            "start": None,
            "end": r.answered_at,
            "seconds": round(r.seconds, 1),
        }
        for r in item_rows
    ]
    rows += [
        {
            "kind": "session",
            "participant": s.participation.user.get_username(),
            "position": None,
            "question_id": "",
            "start": s.started_at,
            "end": s.last_activity_at,
            "seconds": round(s.seconds, 1),
        }
        for s in sessions
    ]
    return rows


class TimeOnTaskApi(BaselineAdminApi):
    @extend_schema(
        summary="Time on task (for payment)",
        description="The rows of the page's time CSV, with its column names: `item` rows "
        "(time on each item, `end` = when it was last answered) and `session` rows (each "
        "stretch of continuous work).",
        parameters=list_parameters(TIME_FILTERS, TIME_ORDERINGS),
        responses={
            200: paginated_schema(TimeRowSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample(
                "One page",
                value={
                    "count": 2,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "kind": "item",
                            "participant": "p-017",
                            "position": 1,
                            "question_id": "Q_CHAR_01_SCN_SCHOOL_AGE_1",
                            "start": None,
                            "end": "2026-12-05T08:05:00Z",
                            "seconds": 31.5,
                        },
                        {
                            "kind": "session",
                            "participant": "p-017",
                            "position": None,
                            "question_id": "",
                            "start": "2026-12-05T08:03:00Z",
                            "end": "2026-12-05T08:26:00Z",
                            "seconds": 1380.0,
                        },
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        return list_response(
            request,
            self,
            time_rows(study),
            TimeRowSerializer,
            filters=TIME_FILTERS,
            orderings=TIME_ORDERINGS,
        )


# --- Best model ---------------------------------------------------------------------------

CHOICE_EXAMPLE = {
    "id": 2,
    "model_label": "model-a",
    "method": "admin",
    "runs": [],
    "n_final_items": None,
    "tied_with": [],
    "reason": "",
    "after_answers": False,
    "chosen_by": "admin",
    "chosen_at": "2026-12-05T08:00:00Z",
}


def replayed_choice(latest: BestModelChoice | None, data: dict) -> bool:
    """The latest fix is this very request (a retried submit): the same runs or label and
    reason. Fixing it again would record a second, identical row."""
    if latest is None or (data.get("reason") or "").strip() != latest.reason:
        return False
    run_ids = sorted(run.pk for run in data.get("runs") or [])
    if run_ids:
        return latest.method == BestModelChoice.Method.FULL_BENCHMARK and run_ids == sorted(
            r["run_id"] for r in latest.runs
        )
    label = (data.get("model_label") or "").strip()
    return latest.method == BestModelChoice.Method.ADMIN and label == latest.model_label


class BestModelApi(BaselineAdminApi):
    @extend_schema(
        summary="A study's best-model history",
        description="Every fix of the model App. J sets against the participants, oldest "
        "first; the last is the current one.",
        parameters=list_parameters(orderings=["chosen_at"]),
        responses={
            200: paginated_schema(BestModelChoiceSerializer),
            400: ERROR,
            404: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample(
                "One page",
                value={"count": 1, "next": None, "previous": None, "results": [CHOICE_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request, study_id: int):
        study = study_or_404(study_id)
        return list_response(
            request,
            self,
            selectors.best_model_history(study=study),
            BestModelChoiceSerializer,
            orderings=["chosen_at"],
        )

    @extend_schema(
        summary="Fix the best model",
        description="Before the report (App. J): `runs` (Naive-RAG evaluation run ids; the "
        "one with the highest accuracy on the full final set wins) or `model_label` (named "
        "in advance), not both. Once participants have answered, a `reason` is required and "
        "the change is recorded as a protocol deviation. 201 with the new fix; the same "
        "submit again answers 200 with it. With a stale If-Match (the study's ETag): 412.",
        parameters=[IF_MATCH],
        request=BestModelInputSerializer,
        responses={
            201: BestModelChoiceSerializer,
            200: BestModelChoiceSerializer,
            400: ERROR,
            404: ERROR,
            412: ERROR,
            **ADMIN_ERRORS,
        },
        examples=[
            OpenApiExample("Named in advance", value={"model_label": "model-a"}, request_only=True),
            OpenApiExample("Fixed", value=CHOICE_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request, study_id: int):
        study = study_or_404(study_id)
        latest = current_best_model(study)
        require_fresh(request, study_etag(study, latest))
        form = BestModelForm(form_data(request), study=study)
        validated(form)
        if replayed_choice(latest, form.cleaned_data):
            return Response(BestModelChoiceSerializer(latest).data)
        choice = actions.best_model_fix(form, user=request.user, study=study)
        return Response(BestModelChoiceSerializer(choice).data, status=status.HTTP_201_CREATED)


# --- Report -------------------------------------------------------------------------------

REPORT_EXAMPLE = {
    "id": 4,
    "status": "done",
    "seed": 20261012,
    "n_boot": 10000,
    "n_permutations": 10000,
    "error": "",
    "requested_by": "admin",
    "created_at": "2026-12-05T09:00:00Z",
    "finished_at": "2026-12-05T09:00:40Z",
    "results": {"n_items": 150, "n_annotators": 4, "mean_accuracy": {"estimate": 0.8}},
    "rows": [
        {
            "section": "humans",
            "statistic": "mean annotator accuracy",
            "estimate": 0.8,
            "ci_low": 0.76,
            "ci_high": 0.84,
        }
    ],
}


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
        examples=[OpenApiExample("Done", value=REPORT_EXAMPLE, response_only=True)],
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
        examples=[
            OpenApiExample(
                "App. J's settings",
                value={"seed": 20261012, "n_boot": 10000, "n_permutations": 10000},
                request_only=True,
            ),
            OpenApiExample(
                "Queued",
                value={**REPORT_EXAMPLE, "status": "pending", "results": None, "rows": []},
                response_only=True,
            ),
        ],
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
