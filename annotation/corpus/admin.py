"""Django admin for the corpus. Imports go through the import service, so import jobs
are read-only here; a frozen profile version is view-only (create a new version).

Generation runs, units and call records are written by the pipeline only, so they are
read-only here too; prompt versions are created from the prompt pages (editing one means
saving the next number). The Django admin is for staff admins, who may see families.
"""

from django.contrib import admin
from django.db.models import Count

from annotation.corpus.models import (
    ActivationSet,
    Character,
    ImportJob,
    ImportJobFile,
    Memory,
    ProfileVersion,
    Scenario,
)
from annotation.generation.models import (
    Candidate,
    GenerationRun,
    GenerationUnit,
    LlmCallRecord,
    PromptVersion,
)
from heartbench_site.base.admin import ReadOnlyAdmin


class FrozenFilter(admin.SimpleListFilter):
    title = "frozen"
    parameter_name = "frozen"

    def lookups(self, request, model_admin):
        return [("yes", "Frozen"), ("no", "Draft")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(frozen_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(frozen_at__isnull=True)
        return queryset


class FrozenIsViewOnly:
    """A frozen version never changes (App. B.1): the admin may look, not touch."""

    def has_change_permission(self, request, obj=None):
        frozen = obj is not None and getattr(obj, "is_frozen", False)
        return not frozen and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        frozen = obj is not None and getattr(obj, "is_frozen", False)
        return not frozen and super().has_delete_permission(request, obj)


class ProfileVersionInline(admin.TabularInline):
    model = ProfileVersion
    fields = ["number", "construction_label", "occupation", "frozen_at", "is_demo_standin"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["key", "version_count", "memory_count", "created_at"]
    search_fields = ["key"]
    inlines = [ProfileVersionInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                _versions=Count("versions", distinct=True),
                _memories=Count("memories", distinct=True),
            )
        )

    @admin.display(description="versions", ordering="_versions")
    def version_count(self, obj):
        return obj._versions

    @admin.display(description="memories", ordering="_memories")
    def memory_count(self, obj):
        return obj._memories


@admin.register(ProfileVersion)
class ProfileVersionAdmin(FrozenIsViewOnly, admin.ModelAdmin):
    list_display = [
        "__str__",
        "construction_label",
        "occupation",
        "openness",
        "conscientiousness",
        "extraversion",
        "agreeableness",
        "neuroticism",
        "is_frozen",
        "is_demo_standin",
        "created_at",
    ]
    list_filter = [FrozenFilter, "is_demo_standin"]
    search_fields = ["character__key", "construction_label", "occupation", "description"]
    list_select_related = ["character"]
    autocomplete_fields = ["character"]
    readonly_fields = ["created_at", "frozen_at", "frozen_by"]

    @admin.display(boolean=True, description="frozen", ordering="frozen_at")
    def is_frozen(self, obj):
        return obj.is_frozen


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = [
        "memory_id",
        "anonymized_id",
        "character",
        "event_age",
        "life_stage",
        "emotion_primary",
        "emotion_intensity",
        "is_demo_standin",
    ]
    list_filter = ["life_stage", "is_demo_standin", "character"]
    search_fields = ["memory_id", "anonymized_id", "content_summary"]
    list_select_related = ["character"]
    autocomplete_fields = ["character"]
    readonly_fields = ["created_at"]
    # 11,000 memories at full scale: skip the unfiltered COUNT on every filtered page.
    show_full_result_count = False
    list_per_page = 50


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["scenario_id", "stage", "age", "name", "diamonds_dimension", "intensity"]
    list_filter = ["stage", "diamonds_dimension", "intensity"]
    search_fields = ["scenario_id", "name", "category", "description_for_agent"]
    readonly_fields = ["created_at"]


@admin.register(ActivationSet)
class ActivationSetAdmin(admin.ModelAdmin):
    list_display = ["character", "scenario", "step", "origin", "scenario_age", "memory_count"]
    list_filter = ["step", "origin", "character"]
    search_fields = ["character__key", "scenario__scenario_id"]
    list_select_related = ["character", "scenario"]
    autocomplete_fields = ["character", "scenario"]
    readonly_fields = ["created_at"]

    @admin.display(description="memories")
    def memory_count(self, obj):
        return len(obj.memory_ids or ())


class ImportJobFileInline(admin.TabularInline):
    model = ImportJobFile
    fields = ["name", "size"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        # The uploaded bytes can be tens of megabytes; the admin never shows them.
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "created_by", "created_at", "started_at", "finished_at"]
    list_filter = ["status"]
    search_fields = ["created_by__username", "files__name"]
    list_select_related = ["created_by"]
    fields = [
        "status",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "summary",
        "errors",
    ]
    readonly_fields = fields
    inlines = [ImportJobFileInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(PromptVersion)
class PromptVersionAdmin(ReadOnlyAdmin):
    list_display = ["stage", "number", "created_by", "created_at", "note"]
    list_filter = ["stage"]
    search_fields = ["note", "system_template", "user_template"]
    list_select_related = ["created_by"]
    fields = ["stage", "number", "system_template", "user_template", "note"]
    readonly_fields = [*fields, "created_by", "created_at"]


@admin.register(GenerationRun)
class GenerationRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "status", "families", "created_by", "created_at", "finished_at"]
    list_filter = ["status"]
    search_fields = ["note", "created_by__username"]
    list_select_related = ["created_by"]
    readonly_fields = [
        "status",
        "families",
        "pair_filter",
        "models",
        "screening_prompt",
        "reranking_prompt",
        "response_prompt",
        "note",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]
    fields = readonly_fields


class LlmCallRecordInline(admin.TabularInline):
    model = LlmCallRecord
    fields = ["stage", "provider", "model", "ok", "error_kind", "tokens_in", "tokens_out"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def get_queryset(self, request):
        # Requests and raw responses can be large; the inline never shows them.
        return super().get_queryset(request).defer("request", "raw_response", "parsed", "details")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(GenerationUnit)
class GenerationUnitAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "run",
        "character",
        "scenario",
        "family",
        "status",
        "stage_reached",
        "attempts",
        "error_kind",
        "updated_at",
    ]
    list_filter = ["status", "family", "stage_reached", "error_kind"]
    search_fields = ["character__key", "scenario__scenario_id", "error_message"]
    list_select_related = ["run", "character", "scenario"]
    readonly_fields = [
        "run",
        "character",
        "scenario",
        "family",
        "profile_version",
        "status",
        "stage_reached",
        "attempts",
        "error_kind",
        "error_message",
        "eligible_memory_ids",
        "screened_memory_ids",
        "activated_memory_ids",
        "reranking_skipped",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "updated_at",
    ]
    fields = readonly_fields
    inlines = [LlmCallRecordInline]
    show_full_result_count = False
    list_per_page = 50


@admin.register(LlmCallRecord)
class LlmCallRecordAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "unit",
        "stage",
        "provider",
        "model",
        "ok",
        "error_kind",
        "tokens_in",
        "tokens_out",
        "latency_s",
        "attempt_count",
        "created_at",
    ]
    list_filter = ["stage", "ok", "provider", "error_kind"]
    search_fields = ["prompt_hash", "model", "error_message"]
    list_select_related = ["unit__character", "unit__scenario"]
    readonly_fields = [
        "unit",
        "stage",
        "provider",
        "model",
        "prompt_hash",
        "ok",
        "error_kind",
        "error_message",
        "tokens_in",
        "tokens_out",
        "latency_s",
        "attempt_count",
        "request",
        "raw_response",
        "parsed",
        "details",
        "created_at",
    ]
    fields = readonly_fields
    show_full_result_count = False
    list_per_page = 50


@admin.register(Candidate)
class CandidateAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "character",
        "scenario",
        "family",
        "model_name",
        "origin",
        "run",
        "created_at",
    ]
    list_filter = ["origin", "family"]
    search_fields = ["character__key", "scenario__scenario_id", "final_decision"]
    list_select_related = ["character", "scenario"]
    readonly_fields = [
        "character",
        "scenario",
        "family",
        "model_name",
        "origin",
        "source",
        "run",
        "unit",
        "profile_version",
        "summary",
        "emotional_tone",
        "core_reasoning",
        "final_decision",
        "activated_memory_ids",
        "created_at",
    ]
    fields = readonly_fields
    show_full_result_count = False
    list_per_page = 50
