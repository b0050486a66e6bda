"""API shapes of the corpus. Field names follow the release and App. B/C schemas, so an
API client reads the same keys the import files carry."""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.corpus.life_stages import LIFE_STAGE_BINS, LIFE_STAGE_CHOICES
from annotation.corpus.models import (
    Character,
    ImportJob,
    ImportJobFile,
    Memory,
    ProfileVersion,
    Scenario,
)
from annotation.generation.models import GenerationRun, GenerationUnit, ModelFamily


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


class ImportJobFileSerializer(serializers.ModelSerializer):
    class Meta:
        model = ImportJobFile
        fields = ["name", "size"]
        read_only_fields = fields


class ImportErrorSerializer(serializers.Serializer):
    file = serializers.CharField()
    # Errors about a whole file name no record or field.
    record = serializers.CharField(required=False, allow_null=True)
    field = serializers.CharField(required=False, allow_null=True)
    message = serializers.CharField()


class ImportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    files = ImportJobFileSerializer(source="file_list", many=True, read_only=True)
    summary = serializers.JSONField(read_only=True)
    errors = ImportErrorSerializer(many=True, read_only=True)

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "status",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "files",
            "summary",
            "errors",
        ]
        read_only_fields = fields


class ImportJobListSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    file_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = ImportJob
        fields = ["id", "status", "created_by", "created_at", "finished_at", "file_count"]
        read_only_fields = fields


class ImportJobCreateSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),
        allow_empty=False,
        help_text="One or more corpus files (send the `files` part once per file).",
    )


# --- Candidate generation (admin only) --------------------------------------------------
# !!! BLINDING !!!  These shapes carry model families and model names: only the admin
# endpoints of api.py may use them.


class NamedChoiceField(serializers.ChoiceField):
    """A choice field whose enum is one named schema component (``component``), so the
    several serializers that use it share it and the names never collide."""

    component = ""
    enum = None

    def __init__(self, **kwargs):
        super().__init__(choices=self.enum.choices, **kwargs)


class NamedChoiceFieldSchema(OpenApiSerializerFieldExtension):
    target_class = NamedChoiceField
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        field = self.target
        component = ResolvedComponent(
            name=field.component,
            type=ResolvedComponent.SCHEMA,
            object=field.component,
            schema={
                "type": "string",
                "enum": list(field.enum.values),
                "description": "\n".join(f"* `{c.value}` - {c.label}" for c in field.enum),
            },
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class ModelFamilyField(NamedChoiceField):
    component, enum = "ModelFamily", ModelFamily


class GenerationRunStatusField(NamedChoiceField):
    component, enum = "GenerationRunStatus", GenerationRun.Status


class GenerationUnitStatusField(NamedChoiceField):
    component, enum = "GenerationUnitStatus", GenerationUnit.Status


class StageCountsSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Units whose result for this stage is stored.")
    running = serializers.IntegerField(help_text="Units a worker is running this stage for.")
    failed = serializers.IntegerField(help_text="Units that failed at this stage.")


class StageBreakdownSerializer(serializers.Serializer):
    screening = StageCountsSerializer()
    reranking = StageCountsSerializer()
    response = StageCountsSerializer()


class UnitStatusCountsSerializer(serializers.Serializer):
    pending = serializers.IntegerField()
    screening = serializers.IntegerField()
    reranking = serializers.IntegerField()
    responding = serializers.IntegerField()
    succeeded = serializers.IntegerField()
    failed = serializers.IntegerField()
    cancelled = serializers.IntegerField()


class FamilyUnitCountsSerializer(UnitStatusCountsSerializer):
    total = serializers.IntegerField()


class GenerationProgressSerializer(serializers.Serializer):
    """``generation_selectors.generation_run_progress``: counts keyed by family value."""

    total = serializers.IntegerField()
    finished = serializers.IntegerField(help_text="Units in a final state.")
    percent = serializers.FloatField()
    by_status = UnitStatusCountsSerializer()
    by_family = serializers.DictField(child=FamilyUnitCountsSerializer())
    by_stage = StageBreakdownSerializer()
    by_family_stage = serializers.DictField(child=StageBreakdownSerializer())
    reranking_skipped = serializers.IntegerField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    estimated_cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)
    calls = serializers.IntegerField()
    failed_calls = serializers.IntegerField()


class PairFilterSerializer(serializers.Serializer):
    characters = serializers.ListField(child=serializers.CharField(), required=False)
    scenarios = serializers.ListField(child=serializers.CharField(), required=False)


class GenerationRunListSerializer(serializers.ModelSerializer):
    status = GenerationRunStatusField(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    families = serializers.ListField(child=ModelFamilyField())
    pair_filter = PairFilterSerializer(help_text="Empty: every pair.")
    models = serializers.DictField(
        child=serializers.CharField(), help_text="The response model per family."
    )
    units_total = serializers.IntegerField(read_only=True)
    units_done = serializers.IntegerField(read_only=True)
    units_failed = serializers.IntegerField(read_only=True)

    class Meta:
        model = GenerationRun
        fields = [
            "id",
            "status",
            "families",
            "pair_filter",
            "models",
            "note",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "units_total",
            "units_done",
            "units_failed",
        ]
        read_only_fields = fields


class GenerationRunSerializer(serializers.ModelSerializer):
    status = GenerationRunStatusField(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    families = serializers.ListField(child=ModelFamilyField())
    pair_filter = PairFilterSerializer(help_text="Empty: every pair.")
    models = serializers.DictField(
        child=serializers.CharField(), help_text="The response model per family."
    )
    screening_prompt = serializers.SlugRelatedField(slug_field="number", read_only=True)
    reranking_prompt = serializers.SlugRelatedField(slug_field="number", read_only=True)
    response_prompt = serializers.SlugRelatedField(slug_field="number", read_only=True)
    # GenerationRun.progress is generation_selectors.generation_run_progress.
    progress = GenerationProgressSerializer(read_only=True)

    class Meta:
        model = GenerationRun
        fields = [
            "id",
            "status",
            "families",
            "pair_filter",
            "models",
            "note",
            "screening_prompt",
            "reranking_prompt",
            "response_prompt",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "progress",
        ]
        read_only_fields = fields


class GenerationRunCreateSerializer(serializers.Serializer):
    families = serializers.ListField(child=ModelFamilyField(), allow_empty=False)
    characters = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        allow_empty=False,
        help_text="Character keys; omit for every character (each needs a frozen profile).",
    )
    scenarios = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        allow_empty=False,
        help_text="Scenario ids; omit for every scenario.",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


class GenerationUnitSerializer(serializers.ModelSerializer):
    character = serializers.SlugRelatedField(slug_field="key", read_only=True)
    scenario = serializers.SlugRelatedField(slug_field="scenario_id", read_only=True)
    family = ModelFamilyField(read_only=True)
    status = GenerationUnitStatusField(read_only=True)
    stage_reached = serializers.CharField(
        read_only=True, help_text="The last stage whose result is stored (empty: none yet)."
    )

    class Meta:
        model = GenerationUnit
        fields = [
            "id",
            "character",
            "scenario",
            "family",
            "status",
            "stage_reached",
            "attempts",
            "error_kind",
            "error_message",
            "reranking_skipped",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "updated_at",
        ]
        read_only_fields = fields


class GenerationUnitFilterSerializer(serializers.Serializer):
    status = GenerationUnitStatusField(required=False)
