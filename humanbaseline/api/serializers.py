"""The study serializers that several baseline endpoints show (the study, its best-model
choice, its rows and items). Admins only: nothing here is ever served to a participant
(the participant's study stays in the browser, built by ``item_materials``); each other
resource's serializers are beside its endpoints.
"""

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.text_rules import SerializerTextRules

from ..models import STUDY_TEXT_LIMITS, BaselineStudy


class StudyRowSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)
    selection = serializers.IntegerField(source="selection_id")
    n_participants = serializers.IntegerField()
    n_finalized = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class BestModelChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    model_label = serializers.CharField()
    method = serializers.CharField(help_text="full_benchmark or admin.")
    runs = serializers.JSONField(
        help_text="[{run_id, label, accuracy, n_items}] of every run compared."
    )
    n_final_items = serializers.IntegerField(allow_null=True)
    tied_with = serializers.ListField(child=serializers.CharField())
    reason = serializers.CharField()
    after_answers = serializers.BooleanField()
    chosen_by = serializers.CharField(source="chosen_by.username")
    chosen_at = serializers.DateTimeField()


class StudySerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)
    selection = serializers.IntegerField(source="selection_id")
    consent_version = serializers.CharField()
    consent_text = serializers.CharField()
    briefing = serializers.CharField()
    pay_text = serializers.CharField(
        help_text="What a participant is paid, shown on the consent page; may be empty."
    )
    retrieval_method = serializers.CharField()
    k = serializers.IntegerField()
    invitation_url = serializers.SerializerMethodField(
        help_text="The link participants sign up with."
    )
    n_items = serializers.IntegerField()
    n_practice = serializers.IntegerField()
    best_model = serializers.SerializerMethodField()
    report_status = serializers.SerializerMethodField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()

    def get_invitation_url(self, study) -> str:
        path = reverse("baseline:join", args=[study.invitation_token])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    @extend_schema_field(BestModelChoiceSerializer(allow_null=True))
    def get_best_model(self, study):
        """The current best model (the latest fix), or null before it is fixed."""
        current = self.context.get("best_model")
        return BestModelChoiceSerializer(current).data if current else None

    def get_report_status(self, study) -> str | None:
        """The latest report's status (pending, running, done, failed), or null."""
        latest = self.context.get("latest_report")
        return latest.status if latest else None


class StudyInputSerializer(SerializerTextRules, serializers.Serializer):
    """The study form's fields (documented; the form validates them)."""

    name = serializers.CharField(max_length=STUDY_TEXT_LIMITS["name"])
    selection = serializers.IntegerField(help_text="A feasible selection's id.")
    consent_version = serializers.CharField(max_length=STUDY_TEXT_LIMITS["consent_version"])
    consent_text = serializers.CharField(max_length=STUDY_TEXT_LIMITS["consent_text"])
    briefing = serializers.CharField(max_length=STUDY_TEXT_LIMITS["briefing"])
    pay_text = serializers.CharField(
        max_length=STUDY_TEXT_LIMITS["pay_text"],
        required=False,
        allow_blank=True,
        help_text="What a participant is paid, as they read it on the consent page.",
    )
    practice_question_ids = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="From scenarios outside the subset; or leave out and give practice_count.",
    )
    practice_count = serializers.IntegerField(required=False, min_value=0)
    retrieval_method = serializers.ChoiceField(choices=["bm25", "tfidf"])
    k = serializers.IntegerField(min_value=1, max_value=200)


class StudyStatusInputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=BaselineStudy.Status.choices)


class StudyItemSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    is_practice = serializers.BooleanField()
    question_id = serializers.CharField(source="item.question_id")
    character = serializers.CharField(source="item.character.key")
    stage = serializers.CharField(source="item.stage")
    retrieval_set = serializers.IntegerField(source="retrieval_set_id")
