"""API shapes of candidate generation: runs, their progress, units, and the launch.

!!! BLINDING !!!  These shapes carry model families and model names: only the admin
endpoints of ``annotation.generation.api`` may use them.
"""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from annotation.generation.gates import Gate
from annotation.generation.models import GenerationRun, GenerationUnit, ModelFamily
from annotation.generation.selectors import generation_run_progress
from core.text_rules import NOTE, SerializerTextRules


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
    """A run's ``selectors.generation_run_progress``: counts keyed by family value."""

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

    def to_representation(self, instance):
        if isinstance(instance, GenerationRun):
            instance = generation_run_progress(run_id=instance.pk)
        return super().to_representation(instance)


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
    # The run's selectors.generation_run_progress (the model imports no selector).
    progress = GenerationProgressSerializer(read_only=True, source="*")

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


class GenerationRunCreateSerializer(SerializerTextRules, serializers.Serializer):
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
    note = serializers.CharField(max_length=NOTE, required=False, allow_blank=True, default="")
    override_gates = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Take the pairs that do not pass the gates (frozen profile, reviewed "
        "scenario, finalized memory audit) too; each is recorded as a protocol deviation.",
    )
    override_reason = serializers.CharField(
        max_length=NOTE,
        required=False,
        allow_blank=True,
        default="",
        help_text="Why the gates are overridden; required with `override_gates`.",
    )

    def validate(self, data):
        if data.get("override_gates") and not data.get("override_reason", "").strip():
            raise serializers.ValidationError(
                {"override_reason": "Say why the gates are overridden: it is recorded."}
            )
        return data


class GateBlockSerializer(serializers.Serializer):
    gate = serializers.ChoiceField(
        choices=[g.value for g in Gate],
        help_text="profile_frozen, scenario_reviewed or memory_audit_finalized.",
    )
    subject = serializers.CharField(help_text="The character key or scenario id it holds.")
    why = serializers.CharField()
    waits_for = serializers.CharField(help_text="Whom or what the gate waits for.")


class GenerationGatesSerializer(serializers.Serializer):
    """``gates.GateReport``: what blocks the chosen pairs."""

    pairs = serializers.IntegerField()
    blocked_pairs = serializers.IntegerField()
    blocks = GateBlockSerializer(many=True)


class GenerationGatesQuerySerializer(serializers.Serializer):
    characters = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Character keys; omit for all."
    )
    scenarios = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Scenario ids; omit for all."
    )


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
