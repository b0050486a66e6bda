"""The serializers of a scenario's review that several endpoints show: its content, its
screenings and ratings, the queue's rows and the review page.
"""

from rest_framework import serializers

from annotation.corpus.models import SCENARIO_CONTENT_LIMITS as CONTENT_LIMITS
from annotation.scenario_review.models import DIAMONDS_FIELDS, DIAMONDS_MAX, DIAMONDS_MIN
from core.text_rules import SerializerTextRules


def scores_field(**kwargs):
    kwargs.setdefault("help_text", f"Keys: {', '.join(DIAMONDS_FIELDS)}.")
    return serializers.DictField(
        child=serializers.IntegerField(min_value=DIAMONDS_MIN, max_value=DIAMONDS_MAX), **kwargs
    )


class RatingSerializer(serializers.Serializer):
    reviewer = serializers.CharField(source="reviewer.username")
    scores = serializers.SerializerMethodField()
    note = serializers.CharField()
    submitted_at = serializers.DateTimeField()

    def get_scores(self, rating) -> dict[str, int]:
        return rating.scores()


class ScreeningSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="version.number")
    reviewer = serializers.CharField(source="reviewer.username")
    decision = serializers.CharField()
    logically_consistent = serializers.BooleanField()
    psychologically_plausible = serializers.BooleanField()
    character_agnostic = serializers.BooleanField()
    note = serializers.CharField()


class ScenarioContentSerializer(SerializerTextRules, serializers.Serializer):
    """The four-component schema (App. C.1 Table 11) of the version under review."""

    stage = serializers.CharField(max_length=CONTENT_LIMITS["stage"])
    age = serializers.IntegerField()
    age_range = serializers.CharField(max_length=CONTENT_LIMITS["age_range"])
    diamonds_dimension = serializers.CharField(
        max_length=CONTENT_LIMITS["diamonds_dimension"], allow_blank=True
    )
    name = serializers.CharField(max_length=CONTENT_LIMITS["name"])
    category = serializers.CharField(max_length=CONTENT_LIMITS["category"])
    intensity = serializers.CharField(max_length=CONTENT_LIMITS["intensity"])
    description_for_agent = serializers.CharField(
        max_length=CONTENT_LIMITS["description_for_agent"]
    )
    setting_location = serializers.CharField(max_length=CONTENT_LIMITS["setting_location"])
    setting_time = serializers.CharField(max_length=CONTENT_LIMITS["setting_time"])
    setting_atmosphere = serializers.CharField(max_length=CONTENT_LIMITS["setting_atmosphere"])
    context_text = serializers.CharField(max_length=CONTENT_LIMITS["context_text"])
    trigger_sender = serializers.CharField(max_length=CONTENT_LIMITS["trigger_sender"])
    trigger_message = serializers.CharField(max_length=CONTENT_LIMITS["trigger_message"])
    action_required = serializers.CharField(
        max_length=CONTENT_LIMITS["action_required"], allow_blank=True
    )


class ScenarioQueueRowSerializer(serializers.Serializer):
    scenario_id = serializers.CharField(source="scenario.scenario_id")
    stage = serializers.CharField(source="scenario.stage")
    review_stage = serializers.CharField(source="review.stage", allow_null=True)
    your_status = serializers.CharField()
    needs_you = serializers.BooleanField()


class ScenarioReviewPageSerializer(serializers.Serializer):
    scenario_id = serializers.CharField(source="scenario.scenario_id")
    review_stage = serializers.CharField(source="stage")
    version = serializers.IntegerField(source="version.number", allow_null=True)
    content = ScenarioContentSerializer(source="version", allow_null=True)
    screenings = ScreeningSerializer(many=True)
    ratings = RatingSerializer(source="visible_ratings", many=True)
    reassess = serializers.SerializerMethodField()
    reassessment = serializers.SerializerMethodField()
    final = serializers.SerializerMethodField()

    def get_reassess(self, page) -> list[str]:
        return [c.field for c in page.comparison if c.reassess]

    def get_reassessment(self, page) -> dict | None:
        """The joint re-assessment: the proposal awaiting confirmation and whom it waits
        for while it is open; who proposed and who confirmed once it is recorded."""
        proposal = page.current_proposal or page.confirmed_proposal
        if proposal is None:
            return None
        final = page.confirmed_proposal is not None
        return {
            "proposal": proposal.pk,
            "proposed_by": proposal.proposed_by.get_username(),
            "values": proposal.values,
            "note": proposal.note,
            "awaiting": "" if final else page.awaiting,
            "confirmed_by": page.review.final.recorded_by.get_username() if final else "",
        }

    def get_final(self, page) -> dict[str, int] | None:
        final = getattr(page.review, "final", None) if page.review else None
        return final.scores() if final else None
