"""A study's time on task over REST (/api/baseline/studies/<id>/time/): the payment
export's rows.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from core.api import ERROR, ListFilter, list_parameters, list_response, paginated_schema

from .. import selectors
from . import examples
from .common import ADMIN_ERRORS, BaselineAdminApi, study_or_404


class TimeRowSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="'item' or 'session'.")
    participant = serializers.CharField()
    position = serializers.IntegerField(allow_null=True)
    question_id = serializers.CharField()
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)
    seconds = serializers.FloatField()


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
        examples=examples.TIME_ON_TASK_GET,
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
