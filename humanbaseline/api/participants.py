"""A study's participants over REST (/api/baseline/studies/<id>/participants/):
accounts made by the admin, and their progress.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from core.actions import validated
from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema
from core.text_rules import SerializerTextRules

from .. import actions, selectors
from ..forms import ParticipantAccountForm
from ..models import PASSWORD_MAX, Participation
from . import examples
from .common import ADMIN_ERRORS, BaselineAdminApi, form_data, study_or_404


class ParticipantSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    username = serializers.CharField(source="user.username")
    status = serializers.CharField(help_text=", ".join(Participation.Status.values))
    enrolled_via = serializers.CharField(help_text="'invitation' or 'admin'.")
    consent_version = serializers.CharField()
    consent_decided_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finalized_at = serializers.DateTimeField(allow_null=True)
    n_items = serializers.SerializerMethodField()
    n_answered = serializers.IntegerField()
    item_seconds = serializers.FloatField(help_text="Time on items, summed.")
    n_sessions = serializers.SerializerMethodField()
    session_seconds = serializers.FloatField(help_text="Work-session time (payment).")
    created_at = serializers.DateTimeField()

    def get_n_items(self, p) -> int:
        return self.context["n_items"]

    def get_n_sessions(self, p) -> int:
        return len(p.work_sessions)

    def to_representation(self, p):
        p.item_seconds = p.item_seconds or 0.0
        return super().to_representation(p)


class ParticipantInputSerializer(SerializerTextRules, serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        max_length=PASSWORD_MAX, help_text="Give it to the participant."
    )


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
        examples=examples.PARTICIPANTS_GET,
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
        examples=examples.PARTICIPANTS_POST,
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
