"""The serializers of a profile's review that several endpoints show: change requests,
reviews, profile fields, the queue's rows and the review page.
"""

from rest_framework import serializers

from annotation.profile_review.models import (
    PROFILE_CRITERIA_FIELDS,
    PROFILE_FIELD_CHOICES,
    Recommendation,
)
from annotation.profile_review.services import PROFILE_TEXT_LIMITS as LIMITS
from core.text_rules import SerializerTextRules


class ChangeRequestSerializer(SerializerTextRules, serializers.Serializer):
    id = serializers.IntegerField(source="pk", read_only=True)
    field = serializers.ChoiceField(choices=PROFILE_FIELD_CHOICES)
    passage = serializers.CharField(max_length=LIMITS["passage"])
    concern = serializers.CharField(max_length=LIMITS["concern"])
    suggested_correction = serializers.CharField(max_length=LIMITS["suggested_correction"])
    status = serializers.CharField(read_only=True)
    resolution_reason = serializers.CharField(read_only=True)


class ProfileReviewSerializer(serializers.Serializer):
    recommendation = serializers.ChoiceField(choices=Recommendation.choices, allow_blank=True)
    criteria = serializers.SerializerMethodField()
    explanation = serializers.CharField()
    unresolved_concern = serializers.CharField()
    missing_information = serializers.CharField()
    submitted_at = serializers.DateTimeField(allow_null=True)
    change_requests = ChangeRequestSerializer(source="requests", many=True)

    def get_criteria(self, review) -> dict[str, str]:
        return {n: getattr(review, n) for n in PROFILE_CRITERIA_FIELDS}


class AdjudicatedReviewSerializer(ProfileReviewSerializer):
    reviewer = serializers.CharField(source="reviewer.username")


class ProfileFieldSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    text = serializers.CharField()


class ProfileQueueRowSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    latest_version = serializers.IntegerField(source="latest.number", allow_null=True)
    state = serializers.CharField()
    your_review = serializers.SerializerMethodField()

    def get_your_review(self, row) -> str | None:
        if row.own_review is None:
            return None
        return "submitted" if row.own_review.is_submitted else "draft"


class ProfileReviewPageSerializer(serializers.Serializer):
    character = serializers.CharField(source="character.key")
    version = serializers.IntegerField(source="version.number", allow_null=True)
    trait_anchor = serializers.CharField(source="version.trait_anchor", allow_null=True)
    case_status = serializers.CharField(source="case.status", allow_null=True)
    fields = ProfileFieldSerializer(many=True)
    can_review = serializers.BooleanField()
    closed_reason = serializers.CharField()
    your_review = ProfileReviewSerializer(source="own_review", allow_null=True)
    adjudicated_reviews = AdjudicatedReviewSerializer(many=True)


class ProfileEditSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    character = serializers.CharField(source="case.character.key")
    from_version = serializers.IntegerField(source="from_version.number")
    to_version = serializers.IntegerField(source="to_version.number")
    editor = serializers.CharField(source="editor.username")
    note = serializers.CharField()
    anchor_change_confirmed = serializers.BooleanField()
    changed_fields = serializers.SerializerMethodField()
    diff = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_changed_fields(self, edit) -> list[str]:
        return [c["field"] for c in edit.diff]

    def get_diff(self, edit) -> list[dict]:
        return [
            {"field": c["field"], "label": c["label"], "before": c["before"], "after": c["after"]}
            for c in edit.diff
        ]
