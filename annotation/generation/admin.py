"""Django admin for candidate generation. Runs, units, call records and candidates are
written by the pipeline only, so they are read-only here; prompt versions are created
from the prompt pages (editing one means saving the next number). The Django admin is
for staff admins, who may see families.
"""

from django.contrib import admin

from annotation.generation.models import (
    Candidate,
    GenerationRun,
    GenerationUnit,
    LlmCallRecord,
    PromptVersion,
)
from core.admin import ReadOnlyAdmin
from core.llm_runs.admin import (
    CallRecordAdmin,
    CallRecordInline,
    LlmRunAdmin,
    LlmUnitAdmin,
    call_fields,
    run_fields,
)


@admin.register(PromptVersion)
class PromptVersionAdmin(ReadOnlyAdmin):
    list_display = ["stage", "number", "created_by", "created_at", "note"]
    list_filter = ["stage"]
    search_fields = ["note", "system_template", "user_template"]
    list_select_related = ["created_by"]
    fields = ["stage", "number", "system_template", "user_template", "note"]
    readonly_fields = [*fields, "created_by", "created_at"]


@admin.register(GenerationRun)
class GenerationRunAdmin(LlmRunAdmin):
    list_display = ["id", "status", "families", "created_by", "created_at", "finished_at"]
    readonly_fields = run_fields(
        "families",
        "pair_filter",
        "models",
        "screening_prompt",
        "reranking_prompt",
        "response_prompt",
    )
    fields = readonly_fields


class LlmCallRecordInline(CallRecordInline):
    model = LlmCallRecord
    fields = ["stage", "provider", "model", "ok", "error_kind", "tokens_in", "tokens_out"]
    readonly_fields = fields


@admin.register(GenerationUnit)
class GenerationUnitAdmin(LlmUnitAdmin):
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


@admin.register(LlmCallRecord)
class LlmCallRecordAdmin(CallRecordAdmin):
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
    list_filter = ["stage", *CallRecordAdmin.list_filter]
    list_select_related = ["unit__character", "unit__scenario"]
    readonly_fields = call_fields("unit", "stage")
    fields = readonly_fields


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
