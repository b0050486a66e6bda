"""A profile's adjudication view over REST (/api/review/profile-adjudication/<key>/), the
senior expert's (seed 000 App. B.3). It carries an ETag; every write on it honours
If-Match.
"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from annotation.profile_review import selectors

from .common import ERROR, SeniorApi, answer, not_found
from .serializers import AdjudicatedReviewSerializer, ProfileEditSerializer, ProfileFieldSerializer


class AdjudicationSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    case_status = serializers.CharField(source="case.status", allow_null=True)
    reviewed_version = serializers.IntegerField(source="reviewed.number", allow_null=True)
    latest_version = serializers.IntegerField(source="latest.number", allow_null=True)
    latest_frozen = serializers.SerializerMethodField()
    latest_fields = serializers.SerializerMethodField()
    submitted = serializers.IntegerField()
    required = serializers.IntegerField()
    open_requests = serializers.IntegerField()
    can_adjudicate = serializers.BooleanField()
    can_freeze = serializers.BooleanField()
    reviews = AdjudicatedReviewSerializer(many=True)
    edits = ProfileEditSerializer(many=True)

    def get_latest_frozen(self, page) -> bool:
        return bool(page.latest and page.latest.is_frozen)

    def get_latest_fields(self, page) -> list[dict]:
        if page.latest is None:
            return []
        return ProfileFieldSerializer(selectors.profile_fields(page.latest), many=True).data


def adjudication_page(key):
    return not_found(lambda: selectors.profile_adjudication_page(character_key=key))


def adjudication_data(key) -> dict:
    return AdjudicationSerializer(adjudication_page(key)).data


class AdjudicationApi(SeniorApi):
    @extend_schema(
        summary="The senior expert's adjudication of a profile",
        description=(
            "Every submitted review side by side with its change requests, the latest "
            "version's fields and the edits so far. The `ETag` names this state: send it "
            "in `If-Match` with a resolve, an edit or the freeze."
        ),
        responses={200: AdjudicationSerializer, 403: ERROR, 404: ERROR},
    )
    def get(self, request, key):
        return answer(adjudication_data(key))
