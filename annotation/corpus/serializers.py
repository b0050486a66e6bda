"""API shapes of the corpus. Field names follow the release and App. B/C schemas, so an
API client reads the same keys the import files carry."""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.corpus.models import Character, Memory, ProfileVersion, Scenario
from annotation.corpus.provenance import source_for
from core.life_stages import LIFE_STAGE_BINS, LIFE_STAGE_CHOICES


class LifeStageField(serializers.ChoiceField):
    """One of the eight life-stage bins; a memory's ``life_stage`` and a scenario's
    ``stage`` are the same vocabulary, so the schema names it once."""

    def __init__(self, **kwargs):
        super().__init__(choices=LIFE_STAGE_CHOICES, **kwargs)


class LifeStageFieldSchema(OpenApiSerializerFieldExtension):
    target_class = LifeStageField

    def map_serializer_field(self, auto_schema, direction):
        component = ResolvedComponent(
            name="LifeStage",
            type=ResolvedComponent.SCHEMA,
            object="LifeStage",
            schema={
                "type": "string",
                "enum": [b.key for b in LIFE_STAGE_BINS],
                "description": "\n".join(
                    f"* `{b.key}` - {b.label} (ages {b.first_age}-{b.last_age})"
                    for b in LIFE_STAGE_BINS
                ),
            },
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class BigFiveSerializer(serializers.Serializer):
    O = serializers.FloatField(source="openness")  # noqa: E741 - the trait's letter
    C = serializers.FloatField(source="conscientiousness")
    E = serializers.FloatField(source="extraversion")
    A = serializers.FloatField(source="agreeableness")
    N = serializers.FloatField(source="neuroticism")


class ProfileVersionSerializer(serializers.ModelSerializer):
    big_five = BigFiveSerializer(source="*")
    is_frozen = serializers.BooleanField(read_only=True)
    frozen_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    trait_anchor = serializers.CharField(read_only=True)

    class Meta:
        model = ProfileVersion
        fields = [
            "number",
            "construction_label",
            "occupation",
            "big_five",
            "trait_anchor",
            "description",
            "self_value_logic",
            "core_patterns",
            "is_demo_standin",
            "source",
            "created_at",
            "is_frozen",
            "frozen_at",
            "frozen_by",
        ]
        read_only_fields = fields

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # Only admins read which model drafted the profile (issue #35).
        request = self.context.get("request")
        data["source"] = source_for(getattr(request, "user", None), data["source"])
        return data


class ProfileVersionSummarySerializer(serializers.ModelSerializer):
    big_five = BigFiveSerializer(source="*")
    is_frozen = serializers.BooleanField(read_only=True)

    class Meta:
        model = ProfileVersion
        fields = ["number", "construction_label", "occupation", "big_five", "is_frozen"]
        read_only_fields = fields


class CharacterSerializer(serializers.ModelSerializer):
    current_version = serializers.SerializerMethodField()
    memory_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Character
        fields = ["key", "current_version", "memory_count"]
        read_only_fields = fields

    @extend_schema_field(ProfileVersionSummarySerializer(allow_null=True))
    def get_current_version(self, character):
        versions = character.current_versions  # newest first, from the selector's prefetch
        return ProfileVersionSummarySerializer(versions[0]).data if versions else None


class CharacterDetailSerializer(CharacterSerializer):
    versions = ProfileVersionSerializer(source="current_versions", many=True, read_only=True)

    class Meta(CharacterSerializer.Meta):
        fields = [*CharacterSerializer.Meta.fields, "versions"]
        read_only_fields = fields


class EmotionSignatureSerializer(serializers.Serializer):
    primary = serializers.CharField(source="emotion_primary")
    secondary = serializers.CharField(source="emotion_secondary")
    intensity = serializers.FloatField(source="emotion_intensity")


class MemorySerializer(serializers.ModelSerializer):
    character = serializers.SlugRelatedField(slug_field="key", read_only=True)
    life_stage = LifeStageField(read_only=True)
    emotion_signature = EmotionSignatureSerializer(source="*")

    class Meta:
        model = Memory
        fields = [
            "memory_id",
            "anonymized_id",
            "character",
            "sequence",
            "timeline",
            "event_age",
            "life_stage",
            "context",
            "content_summary",
            "content_full",
            "triggers",
            "psych_conclusion",
            "behavior_policy",
            "emotion_signature",
            "relevance_tags",
            "is_demo_standin",
            "source",
        ]
        read_only_fields = fields


class MemoryFilterSerializer(serializers.Serializer):
    character = serializers.CharField(required=False, help_text="A character key, e.g. CHAR_06.")
    life_stage = serializers.ChoiceField(choices=LIFE_STAGE_CHOICES, required=False)


class ScenarioFilterSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(choices=LIFE_STAGE_CHOICES, required=False)


class ScenarioSettingSerializer(serializers.Serializer):
    location = serializers.CharField(source="setting_location")
    time = serializers.CharField(source="setting_time")
    atmosphere = serializers.CharField(source="setting_atmosphere")


class TriggerEventSerializer(serializers.Serializer):
    sender = serializers.CharField(source="trigger_sender")
    message_content = serializers.CharField(source="trigger_message")
    action_required = serializers.CharField()


class ScenarioSerializer(serializers.ModelSerializer):
    """The four components of App. C.1: metadata, setting, context, trigger event."""

    id = serializers.CharField(source="scenario_id", read_only=True)
    stage = LifeStageField(read_only=True)
    setting = ScenarioSettingSerializer(source="*")
    trigger_event = TriggerEventSerializer(source="*")

    class Meta:
        model = Scenario
        fields = [
            "id",
            "stage",
            "age_range",
            "age",
            "diamonds_dimension",
            "name",
            "category",
            "intensity",
            "description_for_agent",
            "setting",
            "context_text",
            "trigger_event",
            "source",
        ]
        read_only_fields = fields
